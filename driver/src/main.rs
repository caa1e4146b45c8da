//! The `ptxr` command.

fn main() {
    ptxr_lowering::install_fatal_error_handler();
    std::process::exit(ptxr_driver::run_command_line());
}
