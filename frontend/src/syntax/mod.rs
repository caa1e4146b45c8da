//! From PTX text to the syntax tree: a hand-written lexer, then a chumsky parser with recovery.

pub mod ast;
mod lexer;
mod nesting;
mod parser;
mod shared_slice;
mod tokens;
mod word;

pub use lexer::{lex, Token, TokenKind};
pub use parser::parse;
pub use tokens::Tokens;
