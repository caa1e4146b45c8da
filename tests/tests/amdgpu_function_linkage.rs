//! On AMDGPU every `.func` is the code object's own (internal linkage): clang's OpenCL C output
//! has each kernel call its body, a `.visible .func` with its own `.shared` array, and the
//! external copy left beside the inlined one used LDS from no kernel, which LLVM's back end
//! turned into a trap (with a warning "local memory global used by non-kernel function").

use ptxr_driver::target::describe;
use ptxr_driver::{compile_source, CompileOptions};
use ptxr_lowering::Emit;
use ptxr_tests::read_repository_file;

#[test]
fn a_visible_func_with_its_own_shared_array_compiles_without_a_trap() {
    let source = read_repository_file("tests/fixtures/ptx/opencl_kernels.clang.sm80.ptx");
    assert!(source.contains(".visible .func __clang_ocl_kern_imp_cl_local_reduce"), "the fixture's shape");
    for optimization in [0, 2, 3] {
        let target = describe("amdgpu", None, false).unwrap_or_else(|error| panic!("{error}"));
        let options = CompileOptions { target, emit: Some(Emit::Assembly), optimization };
        let artifact = compile_source(&source, "opencl_kernels", &options)
            .unwrap_or_else(|failure| panic!("-O{optimization}: {failure:?}"));
        let assembly = String::from_utf8_lossy(&artifact.bytes);
        assert!(!assembly.contains("s_trap"), "-O{optimization}: a trap in\n{assembly}");
        assert!(!assembly.contains(".globl\t__clang_ocl_kern_imp_"), "-O{optimization}: an external .func");
    }
}
