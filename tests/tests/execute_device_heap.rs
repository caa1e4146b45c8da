//! CUDA's device heap (`malloc`, `free`; ptx-abi.md section 4.3) under many threads at once:
//! the kernels of `tests/fixtures/kernels/device_heap.ptx` on the CPU (ptxr's runtime heap)
//! and, when an OpenCL platform is set up (`OCL_ICD_VENDORS`), on SPIR-V through OpenCL, where
//! the module brings its own lock-free heap (`intrinsics/src/device_heap.rs`). Each result is
//! checked against a model written here: live blocks never overlap and are 16-byte aligned,
//! each keeps the bytes its thread wrote, freed memory is reused, and a request the heap cannot
//! serve gets null. Where the model fixes a result, the SPIR-V run must equal the CPU run.
//!
//! AMDGPU's heap is the same allocator; no AMD GPU runs here, so its code object is checked:
//! it builds and links, its metadata lists every kernel without ROCm's heap argument, and the
//! 8 MiB heap lies in its `.bss`.

use ptxr_driver::target::describe;
use ptxr_driver::{compile_source, CompileOptions, Failure};
use ptxr_lowering::Emit;
use ptxr_tests::vendor_checks::{code_object_notes, compile, read_code_object, Compiled};
use ptxr_tests::{opencl, read_repository_file, Buffer, Launch};

/// CUDA's default heap size, the size of ptxr's heaps.
const HEAP_BYTES: u64 = 8 << 20;

/// The test that runs the child processes' OpenCL launches (see `ptxr_tests::opencl`).
const OPENCL_CHILD: &str = "opencl_child_process";

#[test]
fn opencl_child_process() {
    opencl::serve_child();
}

fn kernels() -> String {
    read_repository_file("tests/fixtures/kernels/device_heap.ptx")
}

/// Runs `kernel` of the fixture on the CPU and, where OpenCL is set up, on SPIR-V; returns each
/// device's name and buffers.
fn run_everywhere(kernel: &str, blocks: u32, threads: u32, buffers: &[Buffer]) -> Vec<(&'static str, Vec<Vec<u64>>)> {
    let ptx = kernels();
    let launch = Launch { kernel: Some(kernel), grid: [blocks, 1, 1], block: [threads, 1, 1], shared_bytes: 0 };
    opencl::run_everywhere(&ptx, &launch, buffers, OPENCL_CHILD)
}

/// Panics unless the blocks `(address, bytes)` are 16-byte aligned and pairwise disjoint.
fn assert_aligned_and_disjoint(device: &str, blocks: &[(u64, u64)]) {
    let mut sorted = blocks.to_vec();
    sorted.sort_unstable();
    for &(address, _) in &sorted {
        assert_eq!(address % 16, 0, "{device}: block at {address:#x} is not 16-byte aligned");
    }
    for pair in sorted.windows(2) {
        let ((first, bytes), (second, _)) = (pair[0], pair[1]);
        assert!(first + bytes <= second, "{device}: live blocks overlap: {pair:x?}");
    }
}

#[test]
fn concurrent_allocations_are_disjoint_aligned_and_keep_their_bytes() {
    let (blocks, threads) = (8, 128);
    let count = (blocks * threads) as usize;
    let buffers = [Buffer::zeroed("u32", count), Buffer::zeroed("u64", count), Buffer::zeroed("u64", count)];
    // The model: thread i asks for 1 + (7919 i mod 2^32) % 200 bytes, writes byte k as
    // (31 i + k) & 0xff and sums byte k times k + 1, in 32 bits.
    let size = |thread: u64| 1 + (thread * 7919 % (1 << 32)) % 200;
    let sum = |thread: u64| {
        (0..size(thread)).fold(0u32, |sum, k| {
            let byte = (thread.wrapping_mul(31).wrapping_add(k) & 0xff) as u32;
            sum.wrapping_add(byte * (k as u32 + 1))
        })
    };
    let expected_sums: Vec<u64> = (0..count as u64).map(|thread| u64::from(sum(thread))).collect();
    let results = run_everywhere("concurrent_allocations", blocks, threads, &buffers);
    for (device, result) in &results {
        let (sums, addresses, sizes) = (&result[0], &result[1], &result[2]);
        let expected_sizes: Vec<u64> = (0..count as u64).map(size).collect();
        assert_eq!(sizes, &expected_sizes, "{device}: sizes");
        assert!(addresses.iter().all(|&address| address != 0), "{device}: a small request got null");
        let live: Vec<(u64, u64)> = addresses.iter().copied().zip(sizes.iter().copied()).collect();
        assert_aligned_and_disjoint(device, &live);
        assert_eq!(sums, &expected_sums, "{device}: a block lost its bytes");
    }
    if let [(_, cpu), (_, spirv)] = &results[..] {
        assert_eq!(cpu[0], spirv[0], "SPIR-V's sums differ from the CPU's");
    }
}

#[test]
fn freed_blocks_are_reused_far_beyond_the_heap_size() {
    let (blocks, threads) = (4, 128);
    let count = (blocks * threads) as usize;
    // The model: 64 rounds per thread, 3000 + 8 (i % 16) bytes in even rounds and
    // 100 + i % 16 in odd ones; every round's block comes back and keeps its two words.
    let allocated: u64 =
        (0..count as u64).map(|thread| 32 * (3000 + 8 * (thread % 16)) + 32 * (100 + thread % 16)).sum();
    assert!(allocated > 5 * HEAP_BYTES, "the kernel must allocate far more than the heap holds: {allocated}");
    for (device, result) in run_everywhere("reuse_after_free", blocks, threads, &[Buffer::zeroed("u32", count)]) {
        for (thread, &rounds) in result[0].iter().enumerate() {
            assert_eq!(rounds, 64, "{device}: thread {thread} got null or lost its words in some rounds");
        }
    }
}

#[test]
fn exhaustion_gives_null_and_freeing_makes_room_again() {
    // malloc(0) is null (ptxr's choice; CUDA does not say); the whole heap but 16 bytes fits;
    // then 32 more bytes and 2^40 bytes do not; after free, the whole heap again, and then
    // 100 bytes, are served where the first block was.
    let expected = vec![0, 1, 0, 0, 0, 1, 1];
    let results = run_everywhere("exhaustion", 1, 1, &[Buffer::zeroed("u64", 7)]);
    for (device, result) in &results {
        assert_eq!(result[0], expected, "{device}: [malloc(0), served, alignment, 32 more, 2^40, again, 100 bytes]");
    }
}

#[test]
fn contended_exhaustion_serves_disjoint_blocks_and_refuses_the_rest() {
    let (blocks, threads) = (2, 128);
    let count = (blocks * threads) as usize;
    let block_bytes = 64 << 10;
    let buffers = [Buffer::zeroed("u64", count), Buffer::zeroed("u32", count)];
    for (device, result) in run_everywhere("contended_exhaustion", blocks, threads, &buffers) {
        let (addresses, held) = (&result[0], &result[1]);
        let served: Vec<(u64, u64)> =
            addresses.iter().filter(|&&address| address != 0).map(|&address| (address, block_bytes)).collect();
        assert_aligned_and_disjoint(device, &served);
        for (thread, (&address, &held)) in addresses.iter().zip(held).enumerate() {
            assert_eq!(held, u64::from(address != 0), "{device}: thread {thread} at {address:#x}");
        }
        // Twice the heap was asked for: some requests fail. An allocator that rounds sizes up
        // to powers of two, header included, still serves half of the heap's worth.
        assert!(served.len() as u64 * block_bytes <= HEAP_BYTES, "{device}: more served than the heap holds");
        assert!(served.len() as u64 >= HEAP_BYTES / (2 * block_bytes), "{device}: only {} served", served.len());
    }
}

#[test]
fn the_heap_kernels_build_for_amdgpu_with_the_heap_in_the_code_object() {
    let ptx = kernels();
    let code_object = match compile(&ptx, "amdgpu") {
        Compiled::Artefact(bytes) => bytes,
        Compiled::Unsupported(messages) => panic!("unsupported on amdgpu: {messages:?}"),
        Compiled::Rejected(message) => panic!("{message}"),
    };
    let Some(notes) = code_object_notes(&code_object, "device-heap") else { return };
    for kernel in ["concurrent_allocations", "reuse_after_free", "exhaustion", "contended_exhaustion"] {
        assert!(notes.contains(&format!(".name:           {kernel}")), "{kernel} missing from:\n{notes}");
    }
    // ROCm's heap is not used, so its runtime need not set one up.
    assert!(!notes.contains("hidden_heap"), "{notes}");
    let Some(symbols) = read_code_object(&code_object, "--symbols", "device-heap") else { return };
    let heap = symbols
        .lines()
        .find(|line| line.split_whitespace().last() == Some("ptxr.heap"))
        .unwrap_or_else(|| panic!("no heap symbol in:\n{symbols}"));
    assert_eq!(heap.split_whitespace().nth(2), Some("8388608"), "{heap}");
    // The lists are swapped with device-wide ("agent") atomics on global memory.
    let description = describe("amdgpu", None, false).unwrap_or_else(|error| panic!("{error}"));
    let options = CompileOptions { target: description, emit: Some(Emit::Assembly), optimization: 2 };
    let assembly = compile_source(&ptx, "device_heap", &options).unwrap_or_else(|failure| panic!("{failure:?}"));
    let assembly = String::from_utf8_lossy(&assembly.bytes);
    assert!(assembly.contains("global_atomic_cmpswap"), "no global compare-and-swap in the allocator");
}

#[test]
fn the_heap_compiles_at_every_optimisation_level_for_both_gpu_targets() {
    let ptx = kernels();
    for target in ["amdgpu", "spirv"] {
        for optimization in 0..=3 {
            let description = describe(target, None, false).unwrap_or_else(|error| panic!("{error}"));
            let options = CompileOptions { target: description, emit: None, optimization };
            if let Err(failure) = compile_source(&ptx, "device_heap", &options) {
                panic!("{target} -O{optimization}: {failure:?}");
            }
        }
    }
}

#[test]
fn malloc_in_a_32_bit_module_is_reported_on_the_gpu_targets() {
    // The heap is a module variable, whose address has 64 bits on AMDGPU and SPIR-V.
    let ptx = ".version 7.8\n.target sm_80\n.address_size 32\n\
        .extern .func (.param .b32 pointer) malloc (.param .b32 size);\n\
        .visible .entry test(.param .u32 output)\n{\n.reg .b32 %r<4>;\n\
        {\n.param .b32 param0;\n.param .b32 retval0;\nst.param.b32 [param0], 16;\n\
        call.uni (retval0), malloc, (param0);\nld.param.b32 %r1, [retval0];\n}\n\
        ld.param.u32 %r2, [output];\nst.global.u32 [%r2], %r1;\nret;\n}\n";
    for target in ["amdgpu", "spirv"] {
        let description = describe(target, None, false).unwrap_or_else(|error| panic!("{error}"));
        let options = CompileOptions { target: description, emit: None, optimization: 2 };
        match compile_source(ptx, "malloc32", &options) {
            Err(Failure::Diagnostics(diagnostics)) => {
                let messages: Vec<&str> = diagnostics.iter().map(|diagnostic| diagnostic.message.as_str()).collect();
                assert!(
                    messages.iter().any(|message| message.contains("`malloc` with `.address_size 32`")
                        && message.contains(target)),
                    "{target}: {messages:?}"
                );
            }
            other => panic!("{target}: expected E0901, got {:?}", other.map(|artifact| artifact.bytes.len())),
        }
    }
}
