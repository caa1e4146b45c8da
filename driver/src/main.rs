//! The `ptxr` command.

fn main() {
    std::process::exit(ptxr_driver::run_command_line());
}
