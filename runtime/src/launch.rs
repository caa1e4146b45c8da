//! Preparing a launch (checking the spec against the kernel's parameters, allocating and filling
//! the buffers, packing the parameter bytes) and running its grid on the host's cores.
//!
//! Everything that can fail is done by [`prepare`], before the grid starts, so that a bad spec
//! never runs part of a kernel. [`PreparedLaunch::run`] then only spreads the blocks over worker
//! threads and times them.

use std::collections::HashSet;
use std::fs::File;
use std::io::Read;
use std::num::NonZeroUsize;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread;
use std::time::Instant;

use crate::abi::{BlockContext, BlockEntry};
use crate::buffer::{AlignedBuffer, Placement};
use crate::device_library::{with_services, LaunchServices, PrintfOutput};
use crate::element::ElementType;
use crate::error::RuntimeError;
use crate::report::LaunchReport;
use crate::spec::{check_dimensions, ArgumentSpec, BufferContents, BufferSpec, LaunchSpec};

/// One kernel parameter, from the kernel's `.param` list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamLayout {
    pub name: String,
    pub size_bytes: u32,
    /// The parameter's `.align`, or its type's size where it gives none.
    pub align_bytes: u32,
}

/// What the runtime needs to know of the kernel it launches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelSignature {
    pub name: String,
    pub params: Vec<ParamLayout>,
    /// Bytes of static `.shared` variables, which every block's shared window holds before the
    /// launch's dynamic shared memory.
    pub static_shared_bytes: u32,
}

/// The stack of each worker thread unless [`PreparedLaunch::set_worker_stack_bytes`] says
/// otherwise. A block entry runs all threads of a block, up to 1024, and may keep their registers
/// and `.local` arrays on its stack; 64 MiB is only reserved address space until touched.
pub const DEFAULT_WORKER_STACK_BYTES: usize = 64 << 20;

/// A buffer of the launch, shared with the reports of its runs.
pub(crate) struct NamedBuffer {
    pub(crate) name: String,
    pub(crate) element: ElementType,
    pub(crate) memory: Arc<AlignedBuffer>,
}

/// Storage of one parameter: 16-byte aligned, as CUDA aligns `kernelParams` entries at most.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct ParameterChunk([u8; 16]);

/// A launch ready to run: buffers allocated and filled, parameter bytes packed.
pub struct PreparedLaunch {
    pub(crate) kernel: String,
    pub(crate) grid: [u32; 3],
    pub(crate) block: [u32; 3],
    pub(crate) shared_bytes: u32,
    pub(crate) static_shared_bytes: u32,
    ignored_arguments: usize,
    pub(crate) buffers: Vec<NamedBuffer>,
    /// For each parameter, the buffer whose address it carries (other runtimes, such as
    /// OpenCL's, put their own address there).
    pub(crate) parameter_buffers: Vec<Option<usize>>,
    /// The spec's textures, their descriptors pointing at their buffers.
    pub(crate) textures: Vec<PreparedTexture>,
    /// For each parameter, the texture whose descriptor's address it carries.
    pub(crate) parameter_textures: Vec<Option<usize>>,
    /// For each aggregate parameter, the byte offsets of the buffer addresses inside it, with
    /// their buffers (other runtimes put their own addresses there).
    pub(crate) parameter_embedded_buffers: Vec<Vec<(usize, usize)>>,
    /// Every parameter's bytes in one block, the launch's `.param` window (`isspacep.param`
    /// tests an address against it, [`BlockContext::parameter_window`]): parameter `i`'s are
    /// the first `parameter_sizes[i]` bytes from chunk `parameter_chunks[i]`, and
    /// `parameter_pointers[i]` points at them (the box does not move).
    parameter_storage: Box<[ParameterChunk]>,
    parameter_chunks: Vec<usize>,
    parameter_sizes: Vec<usize>,
    parameter_pointers: Vec<*const u8>,
    /// A cooperative launch: one worker per block and a grid workspace (`crate::grid_workspace`).
    pub(crate) cooperative: bool,
    worker_threads: Option<NonZeroUsize>,
    worker_stack_bytes: usize,
    /// The printf output and device heap that the kernel's device-library calls use.
    services: LaunchServices,
}

// SAFETY: the raw pointers point into storage that the launch owns (parameter boxes and buffers),
// not into anything tied to a thread, so the launch may move to another thread.
unsafe impl Send for PreparedLaunch {}
// SAFETY: through `&PreparedLaunch` the pointers are only read, never written through; kernels
// run only from `run`, which takes `&mut self`.
unsafe impl Sync for PreparedLaunch {}

/// A texture of the launch: its descriptor (boxed, so that its address stays) and the buffer
/// that holds its texels.
pub(crate) struct PreparedTexture {
    pub(crate) buffer: usize,
    pub(crate) reference: Option<String>,
    pub(crate) descriptor: Box<crate::texture::TextureDescriptor>,
}

/// Checks `spec` against `kernel`, then allocates and fills the buffers (files relative to
/// `spec_dir`) and packs the parameters. Every error is found here, before anything runs: a
/// kernel named differently from the spec's, grid or block sizes beyond CUDA's limits, an
/// argument count or size that does not match the kernel's `.param` list, unreadable files, and
/// memory that cannot be had.
pub fn prepare(spec: &LaunchSpec, spec_dir: &Path, kernel: &KernelSignature) -> Result<PreparedLaunch, RuntimeError> {
    if let Some(requested) = spec.kernel_name() {
        if requested != kernel.name {
            return Err(RuntimeError::field(
                "kernel",
                format!("the spec names `{requested}` but the kernel given is `{}`", kernel.name),
            ));
        }
    }
    check_dimensions(spec.grid, spec.block)?;
    if spec.cooperative {
        crate::grid_workspace::check_grid(spec.block_count())?;
    }
    let mut names = HashSet::new();
    if let Some(twice) = spec.buffers.iter().find(|buffer| !names.insert(buffer.name.as_str())) {
        return Err(RuntimeError::buffer(&twice.name, "declared twice"));
    }
    // Arguments beyond the kernel's parameters are ignored, as cuLaunchKernel reads only as many
    // `kernelParams` as the kernel has (ZLUDA's warp tests pass two to one-parameter kernels);
    // `PreparedLaunch::ignored_arguments` lets the caller warn. Too few is an error.
    if spec.args.len() < kernel.params.len() {
        return Err(RuntimeError::ArgumentCount {
            kernel: kernel.name.clone(),
            expected: kernel.params.len(),
            given: spec.args.len(),
        });
    }

    // Match arguments to parameters first, so that mistakes surface before large buffers are
    // read, and so that buffers behind 32-bit pointer parameters are known before allocating.
    let mut low_buffers: Vec<Option<&str>> = vec![None; spec.buffers.len()];
    let mut buffer_of_argument = Vec::with_capacity(spec.args.len());
    let mut texture_of_argument = vec![None; spec.args.len()];
    let mut embedded_buffers = vec![Vec::new(); spec.args.len()];
    for (index, (argument, parameter)) in spec.args.iter().zip(&kernel.params).enumerate() {
        let size = parameter.size_bytes;
        let name = &parameter.name;
        match argument {
            ArgumentSpec::Buffer(buffer_name) => {
                let position = spec
                    .buffers
                    .iter()
                    .position(|buffer| &buffer.name == buffer_name)
                    .ok_or_else(|| RuntimeError::argument(index, format!("no buffer named `{buffer_name}`")))?;
                match size {
                    8 => {}
                    4 => low_buffers[position] = Some(name),
                    _ => {
                        return Err(RuntimeError::argument(
                            index,
                            format!(
                                "kernel parameter `{name}` is {size} bytes but buffer \
                                 `{buffer_name}` passes an address (8 bytes, or 4 for \
                                 .address_size 32 kernels)"
                            ),
                        ))
                    }
                }
                buffer_of_argument.push(Some(position));
            }
            ArgumentSpec::Texture(texture_name) => {
                if size != 8 {
                    return Err(RuntimeError::argument(
                        index,
                        format!("kernel parameter `{name}` is {size} bytes but texture `{texture_name}` passes a 64-bit texture object"),
                    ));
                }
                texture_of_argument[index] = spec.textures.iter().position(|texture| &texture.name == texture_name);
                buffer_of_argument.push(None);
            }
            ArgumentSpec::Aggregate(aggregate) => {
                embedded_buffers[index] = check_aggregate(index, aggregate, parameter, &spec.buffers)?;
                buffer_of_argument.push(None);
            }
            ArgumentSpec::Scalar { element, bits } => {
                if element.size_bytes() != size as usize {
                    return Err(RuntimeError::argument(
                        index,
                        format!(
                            "kernel parameter `{name}` is {size} bytes but a {element} value ({} \
                             bytes) was given",
                            element.size_bytes()
                        ),
                    ));
                }
                if *bits > element.bit_mask() {
                    return Err(RuntimeError::argument(index, format!("value {bits:#x} does not fit in {element}")));
                }
                buffer_of_argument.push(None);
            }
        }
    }

    let buffers = spec
        .buffers
        .iter()
        .zip(&low_buffers)
        .map(|(buffer, low)| allocate(buffer, spec_dir, *low))
        .collect::<Result<Vec<_>, _>>()?;

    let mut textures = Vec::with_capacity(spec.textures.len());
    for texture in &spec.textures {
        let position = spec.buffers.iter().position(|buffer| buffer.name == texture.buffer).ok_or_else(|| {
            RuntimeError::field("textures", format!("texture `{}`: no buffer named `{}`", texture.name, texture.buffer))
        })?;
        let reach = crate::texture_spec::RawTexture::reach(&texture.descriptor);
        let bytes = buffers[position].memory.len() as u64;
        if reach > bytes {
            return Err(RuntimeError::field(
                "textures",
                format!("texture `{}` reaches {reach} bytes but buffer `{}` has {bytes}", texture.name, texture.buffer),
            ));
        }
        let mut descriptor = Box::new(texture.descriptor);
        descriptor.data = buffers[position].memory.address();
        textures.push(PreparedTexture { buffer: position, reference: texture.reference.clone(), descriptor });
    }
    let mut launch = PreparedLaunch {
        kernel: kernel.name.clone(),
        grid: spec.grid,
        block: spec.block,
        shared_bytes: spec.shared_bytes,
        static_shared_bytes: kernel.static_shared_bytes,
        ignored_arguments: spec.args.len() - kernel.params.len(),
        buffers,
        parameter_storage: Box::default(),
        parameter_chunks: Vec::with_capacity(spec.args.len()),
        parameter_sizes: Vec::with_capacity(spec.args.len()),
        parameter_pointers: Vec::with_capacity(spec.args.len()),
        parameter_buffers: buffer_of_argument.clone(),
        textures,
        parameter_textures: texture_of_argument.clone(),
        cooperative: spec.cooperative,
        parameter_embedded_buffers: embedded_buffers,
        worker_threads: None,
        worker_stack_bytes: DEFAULT_WORKER_STACK_BYTES,
        services: LaunchServices::default(),
    };
    launch.services.buffer_ranges = launch
        .buffers
        .iter()
        .map(|buffer| (buffer.memory.address(), buffer.memory.address() + buffer.memory.len() as u64))
        .collect();
    let mut storage = Vec::new();
    for (index, ((argument, parameter), buffer)) in
        spec.args.iter().zip(&kernel.params).zip(buffer_of_argument).enumerate()
    {
        let size = parameter.size_bytes as usize;
        let value = match (argument, buffer) {
            (_, Some(position)) => launch.buffers[position].memory.address(),
            (ArgumentSpec::Scalar { bits, .. }, None) => *bits,
            (ArgumentSpec::Texture(_), None) => texture_of_argument[index].map_or(0, |texture| {
                std::ptr::from_ref::<crate::texture::TextureDescriptor>(&launch.textures[texture].descriptor) as u64
            }),
            // A buffer argument always has its position from the loop above; an aggregate's
            // bytes are written below.
            (ArgumentSpec::Buffer(_) | ArgumentSpec::Aggregate(_), None) => 0,
        };
        // Scalar sizes are 1, 2, 4 or 8 here (checked above); a 4-byte address is below 4 GiB.
        // An aggregate's bytes fit its parameter (`check_aggregate`), the rest staying zero.
        let mut bytes = vec![0u8; size];
        if let ArgumentSpec::Aggregate(aggregate) = argument {
            bytes[..aggregate.bytes.len()].copy_from_slice(&aggregate.bytes);
            for &(offset, position) in &launch.parameter_embedded_buffers[index] {
                bytes[offset..offset + 8].copy_from_slice(&launch.buffers[position].memory.address().to_le_bytes());
            }
        } else {
            let value = value.to_le_bytes();
            let scalar = size.min(value.len());
            bytes[..scalar].copy_from_slice(&value[..scalar]);
        }
        let first = storage.len();
        storage.resize(first + size.div_ceil(16).max(1), ParameterChunk([0; 16]));
        for (offset, &byte) in bytes.iter().enumerate() {
            storage[first + offset / 16].0[offset % 16] = byte;
        }
        launch.parameter_chunks.push(first);
        launch.parameter_sizes.push(size);
    }
    launch.parameter_storage = storage.into_boxed_slice();
    let base = launch.parameter_storage.as_ptr();
    // SAFETY: each parameter's first chunk lies inside the storage.
    launch.parameter_pointers =
        launch.parameter_chunks.iter().map(|&chunk| unsafe { base.add(chunk) }.cast::<u8>()).collect();
    Ok(launch)
}

/// Checks an aggregate argument against its parameter: it fits the parameter's size (raw `bytes`
/// fill it exactly) and needs no more alignment than the parameter has. Returns the byte offsets
/// of its buffer addresses with the positions of their buffers.
fn check_aggregate(
    index: usize,
    aggregate: &crate::aggregate_spec::AggregateSpec,
    parameter: &ParamLayout,
    buffers: &[BufferSpec],
) -> Result<Vec<(usize, usize)>, RuntimeError> {
    let (name, size, align) = (&parameter.name, parameter.size_bytes as usize, parameter.align_bytes as usize);
    let given = aggregate.bytes.len();
    if aggregate.exact_size && given != size {
        return Err(RuntimeError::argument(
            index,
            format!("kernel parameter `{name}` is {size} bytes but {given} bytes were given"),
        ));
    }
    if given > size {
        return Err(RuntimeError::argument(
            index,
            format!("kernel parameter `{name}` is {size} bytes but the fields reach {given} bytes"),
        ));
    }
    if aggregate.align > align {
        return Err(RuntimeError::argument(
            index,
            format!(
                "kernel parameter `{name}` is aligned to {align} bytes but a field needs {} (give the \
                 fields as `bytes` to pass them unaligned)",
                aggregate.align
            ),
        ));
    }
    aggregate
        .buffers
        .iter()
        .map(|(offset, buffer_name)| {
            let position = buffers
                .iter()
                .position(|buffer| &buffer.name == buffer_name)
                .ok_or_else(|| RuntimeError::argument(index, format!("no buffer named `{buffer_name}`")))?;
            Ok((*offset, position))
        })
        .collect()
}

/// Allocates one buffer and fills it from the spec; `low_parameter` names a 32-bit pointer
/// parameter it is passed to, which needs it below 4 GiB.
fn allocate(buffer: &BufferSpec, spec_dir: &Path, low_parameter: Option<&str>) -> Result<NamedBuffer, RuntimeError> {
    let name = &buffer.name;
    let element = buffer.element;
    let size = element.size_bytes();
    let reserve = |len: u64| -> Result<AlignedBuffer, RuntimeError> {
        let bytes = len
            .checked_mul(size as u64)
            .and_then(|bytes| usize::try_from(bytes).ok())
            .ok_or_else(|| RuntimeError::buffer(name, format!("{len} elements of {element} are too many bytes")))?;
        let placement = if low_parameter.is_some() { Placement::Below4GiB } else { Placement::Anywhere };
        AlignedBuffer::zeroed(bytes, placement).ok_or_else(|| match low_parameter {
            Some(parameter) => RuntimeError::buffer(
                name,
                format!(
                    "cannot reserve {bytes} bytes below 4 GiB, where the 32-bit pointer \
                     parameter `{parameter}` needs it"
                ),
            ),
            None => RuntimeError::buffer(name, format!("cannot reserve {bytes} bytes")),
        })
    };
    let memory = match &buffer.contents {
        BufferContents::Zeroed { len } => reserve(*len)?,
        BufferContents::Elements(elements) => {
            let mut memory = reserve(elements.len() as u64)?;
            for (index, (&bits, bytes)) in elements.iter().zip(memory.as_mut_slice().chunks_exact_mut(size)).enumerate()
            {
                if bits > element.bit_mask() {
                    return Err(RuntimeError::buffer(
                        name,
                        format!("element {index}: {bits:#x} does not fit in {element}"),
                    ));
                }
                element.write_bits(bits, bytes);
            }
            memory
        }
        BufferContents::File { path, len } => {
            let path = spec_dir.join(path);
            let io_error = |source| RuntimeError::Io {
                context: format!("buffer `{name}`: cannot read file"),
                path: path.clone(),
                source,
            };
            let mut file = File::open(&path).map_err(io_error)?;
            let file_bytes = file.metadata().map_err(io_error)?.len();
            if file_bytes % size as u64 != 0 {
                return Err(RuntimeError::buffer(
                    name,
                    format!(
                        "file `{}` is {file_bytes} bytes, not a whole number of {size}-byte \
                         {element} elements",
                        path.display()
                    ),
                ));
            }
            let count = file_bytes / size as u64;
            if let Some(len) = len {
                if *len != count {
                    return Err(RuntimeError::buffer(
                        name,
                        format!("`len` is {len} but file `{}` holds {count}", path.display()),
                    ));
                }
            }
            let mut memory = reserve(count)?;
            file.read_exact(memory.as_mut_slice()).map_err(io_error)?;
            memory
        }
    };
    Ok(NamedBuffer { name: name.clone(), element, memory: Arc::new(memory) })
}

/// The parameter pointer array and the window that holds every parameter's bytes, sent to the
/// worker threads.
#[derive(Clone, Copy)]
struct ParameterArray {
    pointers: *const *const u8,
    window: *const u8,
    window_bytes: u64,
}

// SAFETY: the array and the parameter bytes it points at are owned by the `PreparedLaunch`, which
// `run` borrows mutably for as long as any worker runs; workers only read them.
unsafe impl Send for ParameterArray {}

impl ParameterArray {
    // Methods, not field access, so that closures capture the whole (Send) wrapper.
    fn get(self) -> *const *const u8 {
        self.pointers
    }

    fn window(self) -> (*const u8, u64) {
        (self.window, self.window_bytes)
    }
}

impl PreparedLaunch {
    /// Runs the grid: blocks are spread over worker threads (as many as the machine has cores, at
    /// most one per block) that take block indices from a shared counter, x fastest. Each block
    /// calls `entry(params, &context)` with its own [`BlockContext`] and its worker's dynamic
    /// shared memory, zeroed before each block. The returned report's `elapsed` covers the grid
    /// alone: from starting the workers to the last one finishing.
    ///
    /// The buffers keep their contents afterwards, and a later `run` starts from them (like
    /// launches on one CUDA context); it fails with [`RuntimeError::BuffersInUse`] while a report
    /// of an earlier run still exists.
    ///
    /// # Safety
    ///
    /// `entry` must be a block entry compiled for this launch's kernel (see [`crate::abi`]): it
    /// reads exactly the parameters of the [`KernelSignature`] given to [`prepare`], touches
    /// only memory within the buffers, its dynamic shared memory and its own stack, and is safe
    /// to call from several threads at once for different blocks.
    pub unsafe fn run(&mut self, entry: BlockEntry) -> Result<LaunchReport, RuntimeError> {
        if self.buffers.iter_mut().any(|buffer| Arc::get_mut(&mut buffer.memory).is_none()) {
            return Err(RuntimeError::BuffersInUse);
        }
        let grid = self.grid;
        let blocks: u64 = grid.iter().map(|&size| u64::from(size)).product();
        let available =
            self.worker_threads.or_else(|| thread::available_parallelism().ok()).map_or(1, NonZeroUsize::get);
        // A cooperative grid's blocks wait for each other (`grid.sync()`), so each gets its own
        // worker: all of them are resident at once, as CUDA guarantees for such a launch. The
        // spec's check bounded `blocks`.
        let workers = if self.cooperative {
            usize::try_from(blocks).unwrap_or(usize::MAX)
        } else {
            usize::try_from(blocks).map_or(available, |blocks| available.min(blocks))
        };
        let mut workspace = if self.cooperative { Some(crate::grid_workspace::allocate()?) } else { None };
        let workspace_pointer = workspace.as_mut().map(AlignedBuffer::as_mut_ptr);
        // Shared memory for every worker is reserved before the clock starts.
        let mut shared_memories = (0..workers)
            .map(|_| {
                AlignedBuffer::zeroed(
                    self.static_shared_bytes as usize + self.shared_bytes as usize,
                    Placement::Anywhere,
                )
            })
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| RuntimeError::Launch {
                message: format!(
                    "cannot reserve {} bytes of shared memory for each of {workers} workers",
                    u64::from(self.static_shared_bytes) + u64::from(self.shared_bytes)
                ),
            })?;
        let shape = GridShape {
            grid,
            block: self.block,
            shared_bytes: self.shared_bytes,
            static_shared_bytes: self.static_shared_bytes,
            grid_id: next_grid_id(),
            // `workers` is at most `available`, a usize count of threads, far below 2^32, or
            // the number of blocks of a cooperative grid, at most MAX_COOPERATIVE_BLOCKS.
            workers: u32::try_from(workers).unwrap_or(u32::MAX),
            grid_workspace: workspace_pointer.map_or(0, |pointer| pointer as usize as u64),
        };
        let cooperative = self.cooperative;
        let parameters = ParameterArray {
            pointers: self.parameter_pointers.as_ptr(),
            window: self.parameter_storage.as_ptr().cast::<u8>(),
            window_bytes: std::mem::size_of_val(&*self.parameter_storage) as u64,
        };
        let stack_bytes = self.worker_stack_bytes;
        let next_block = AtomicU64::new(0);
        let next_block = &next_block;

        let started = Instant::now();
        let stop = AtomicBool::new(false);
        let stop = &stop;
        let services = &self.services;
        // The blocks of a cooperative grid start only once every worker has started: a block
        // waiting at a grid barrier for a worker that could not start would wait forever.
        let gate = StartGate::new(!cooperative);
        let gate = &gate;
        let outcome = thread::scope(|scope| {
            let mut workers = Vec::new();
            for (index, shared_memory) in shared_memories.iter_mut().enumerate() {
                let worker = thread::Builder::new()
                    .name(format!("ptxr-worker-{index}"))
                    .stack_size(stack_bytes)
                    .spawn_scoped(scope, move || {
                        crate::stack_floor::set_for_this_thread();
                        gate.wait();
                        // SAFETY: the caller of `run` vouches for `entry`; parameters, buffers
                        // and shared memory outlive the scope.
                        with_services(services, || unsafe {
                            let worker = Worker { index: u32::try_from(index).unwrap_or(u32::MAX), shared_memory };
                            run_blocks(entry, parameters, shape, blocks, next_block, worker, stop)
                        })
                    });
                match worker {
                    Ok(handle) => workers.push(handle),
                    // Workers already started take every block, just with less parallelism,
                    // unless the blocks wait for each other.
                    Err(_) if !workers.is_empty() && !cooperative => break,
                    Err(error) => {
                        // The workers already started take no block: they leave at once.
                        stop.store(true, Ordering::Relaxed);
                        gate.open();
                        return Err(RuntimeError::Launch { message: format!("cannot start a worker thread: {error}") });
                    }
                }
            }
            gate.open();
            if let Some(workspace) = workspace_pointer {
                // Once a block has failed, the others may wait for it at a grid barrier forever.
                while !workers.iter().all(thread::ScopedJoinHandle::is_finished) {
                    if stop.load(Ordering::Relaxed) {
                        // SAFETY: `workspace` outlives the scope.
                        unsafe { crate::grid_workspace::release_waiters(workspace) };
                    }
                    thread::sleep(std::time::Duration::from_millis(1));
                }
            }
            let mut failure = None;
            for worker in workers {
                match worker.join() {
                    Ok(Some(message)) => {
                        failure.get_or_insert(message);
                    }
                    Ok(None) => {}
                    Err(_) => {
                        failure.get_or_insert_with(|| "a worker thread panicked".to_string());
                    }
                }
            }
            match failure {
                Some(message) => Err(RuntimeError::Launch { message }),
                None => Ok(()),
            }
        });
        let elapsed = started.elapsed();
        outcome?;

        Ok(self.report(elapsed))
    }

    /// A report sharing the buffers as they are now, for a run that took `elapsed`.
    pub(crate) fn report(&self, elapsed: std::time::Duration) -> LaunchReport {
        LaunchReport::new(
            self.kernel.clone(),
            self.buffers
                .iter()
                .map(|buffer| NamedBuffer {
                    name: buffer.name.clone(),
                    element: buffer.element,
                    memory: Arc::clone(&buffer.memory),
                })
                .collect(),
            elapsed,
        )
    }

    /// Sends the text of the kernel's `printf` calls to `output` (by default it is dropped).
    pub fn set_printf_output(&mut self, output: PrintfOutput) {
        self.services.printf_output = Some(output);
    }

    /// Uses exactly `count` worker threads (still at most one per block) instead of one per core.
    pub fn set_worker_threads(&mut self, count: NonZeroUsize) {
        self.worker_threads = Some(count);
    }

    /// Gives each worker thread a stack of `bytes` (default [`DEFAULT_WORKER_STACK_BYTES`]).
    pub fn set_worker_stack_bytes(&mut self, bytes: usize) {
        self.worker_stack_bytes = bytes;
    }

    /// The kernel being launched.
    pub fn kernel_name(&self) -> &str {
        &self.kernel
    }

    pub fn grid(&self) -> [u32; 3] {
        self.grid
    }

    pub fn block(&self) -> [u32; 3] {
        self.block
    }

    pub fn shared_bytes(&self) -> u32 {
        self.shared_bytes
    }

    /// How many arguments of the spec came after the kernel's last parameter (and are unused).
    pub fn ignored_arguments(&self) -> usize {
        self.ignored_arguments
    }

    /// The current contents of the named buffer (little-endian elements).
    /// The textures the spec binds to `.texref`/`.surfref` variables: each variable's name and
    /// the descriptor bytes to copy into it (pointing at the host buffer) before the grid.
    pub fn texture_references(&self) -> Vec<(&str, Vec<u8>)> {
        self.textures
            .iter()
            .filter_map(|texture| Some((texture.reference.as_deref()?, texture.descriptor.to_bytes())))
            .collect()
    }

    pub fn buffer_bytes(&self, name: &str) -> Option<&[u8]> {
        self.find_buffer(name).map(|buffer| buffer.memory.as_slice())
    }

    /// The address the kernel sees for the named buffer.
    pub fn buffer_address(&self, name: &str) -> Option<u64> {
        self.find_buffer(name).map(|buffer| buffer.memory.address())
    }

    /// The packed bytes of kernel parameter `index`, as the kernel reads them.
    pub fn parameter_bytes(&self, index: usize) -> Option<&[u8]> {
        let storage = &self.parameter_storage[*self.parameter_chunks.get(index)?..];
        let size = self.parameter_sizes[index];
        // SAFETY: the chunks are contiguous `[u8; 16]` arrays (repr(C), size 16, no padding),
        // at least `size` bytes in all from the parameter's first, and initialized.
        Some(unsafe { std::slice::from_raw_parts(storage.as_ptr().cast::<u8>(), size) })
    }

    fn find_buffer(&self, name: &str) -> Option<&NamedBuffer> {
        self.buffers.iter().find(|buffer| buffer.name == name)
    }
}

/// The sizes every block's context repeats.
#[derive(Clone, Copy)]
struct GridShape {
    grid: [u32; 3],
    block: [u32; 3],
    shared_bytes: u32,
    static_shared_bytes: u32,
    /// `%gridid`: this launch's number.
    grid_id: u64,
    /// `%nsmid`: how many workers the launch starts (fewer may start; see `run`).
    workers: u32,
    /// The cooperative launch's grid workspace's address, or 0.
    grid_workspace: u64,
}

/// What belongs to one worker thread: its index (`%smid`) and its block's shared memory.
struct Worker<'a> {
    index: u32,
    shared_memory: &'a mut AlignedBuffer,
}

/// Holds workers back until it opens (see `PreparedLaunch::run`).
struct StartGate {
    open: Mutex<bool>,
    opened: Condvar,
}

impl StartGate {
    fn new(open: bool) -> StartGate {
        StartGate { open: Mutex::new(open), opened: Condvar::new() }
    }

    fn wait(&self) {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        while !*open {
            open = self.opened.wait(open).unwrap_or_else(PoisonError::into_inner);
        }
    }

    fn open(&self) {
        *self.open.lock().unwrap_or_else(PoisonError::into_inner) = true;
        self.opened.notify_all();
    }
}

/// Launches of this process so far, for `%gridid`, which the ISA (section 10.10) describes as a
/// temporal identifier that tells launches apart.
static LAUNCHES: AtomicU64 = AtomicU64::new(0);

/// The next launch's `%gridid`: 1 for the first launch of the process, then counting up.
pub(crate) fn next_grid_id() -> u64 {
    // Relaxed: only distinctness matters.
    LAUNCHES.fetch_add(1, Ordering::Relaxed) + 1
}

/// One worker: takes block indices until none are left and runs each.
///
/// # Safety
///
/// As for [`PreparedLaunch::run`]; `parameters` is the launch's pointer array.
unsafe fn run_blocks(
    entry: BlockEntry,
    parameters: ParameterArray,
    shape: GridShape,
    blocks: u64,
    next_block: &AtomicU64,
    worker: Worker<'_>,
    stop: &AtomicBool,
) -> Option<String> {
    let Worker { index: worker_index, shared_memory } = worker;
    let [grid_x, grid_y, _] = shape.grid.map(u64::from);
    let (parameter_window, parameter_window_bytes) = parameters.window();
    let mut shared_memory_fresh = true;
    // Workers take runs of consecutive blocks, so that small blocks do not all contend for the
    // counter's cache line; runs stay short enough to balance the load at the end.
    let run_length = (blocks / 1024).clamp(1, 32);
    let mut next = 0;
    let mut end = 0;
    loop {
        if next == end {
            // Relaxed: the counter only hands out distinct indices; the kernel's memory effects
            // are published to the caller by joining the thread.
            next = next_block.fetch_add(run_length, Ordering::Relaxed);
            end = next.saturating_add(run_length).min(blocks);
        }
        let index = next;
        next += 1;
        if index >= blocks || stop.load(Ordering::Relaxed) {
            return None;
        }
        if !shared_memory_fresh {
            shared_memory.fill_zero();
        }
        shared_memory_fresh = false;
        // Each coordinate is below its grid size, which is a u32.
        let ctaid = [(index % grid_x) as u32, (index / grid_x % grid_y) as u32, (index / (grid_x * grid_y)) as u32];
        let context = BlockContext {
            ctaid,
            nctaid: shape.grid,
            ntid: shape.block,
            dynamic_shared_bytes: shape.shared_bytes,
            shared: shared_memory.as_mut_ptr(),
            static_shared_bytes: shape.static_shared_bytes,
            parameters: parameters.get(),
            parameter_window,
            parameter_window_bytes,
            grid_id: shape.grid_id,
            sm_id: worker_index,
            sm_count: shape.workers,
            grid_workspace: shape.grid_workspace,
        };
        // SAFETY: see the function's contract.
        unsafe { entry(parameters.get(), &context) };
        if let Some(message) = crate::cooperative::take_block_failure() {
            // The first failure stops the launch: other workers take no further blocks.
            stop.store(true, Ordering::Relaxed);
            return Some(format!("block ({}, {}, {}): {message}", ctaid[0], ctaid[1], ctaid[2]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signature(params: &[(&str, u32)]) -> KernelSignature {
        KernelSignature {
            static_shared_bytes: 0,
            name: "kernel".into(),
            params: params
                .iter()
                .map(|&(name, size_bytes)| ParamLayout {
                    name: name.into(),
                    size_bytes,
                    align_bytes: size_bytes.min(16),
                })
                .collect(),
        }
    }

    fn prepare_text(text: &str, params: &[(&str, u32)]) -> Result<PreparedLaunch, RuntimeError> {
        let spec = LaunchSpec::from_json(text).expect("the spec is valid");
        prepare(&spec, Path::new("."), &signature(params))
    }

    fn error(text: &str, params: &[(&str, u32)]) -> String {
        match prepare_text(text, params) {
            Ok(_) => panic!("{text} was prepared"),
            Err(error) => error.to_string(),
        }
    }

    #[test]
    fn parameters_are_packed_little_endian_and_aligned() {
        let launch = prepare_text(
            r#"{"buffers": {"a": {"type": "u8", "len": 3}},
                "args": [{"buffer": "a"}, {"type": "u16", "value": 258}, {"type": "f32", "value": 1},
                         {"type": "s64", "value": -2}]}"#,
            &[("a", 8), ("b", 2), ("c", 4), ("d", 8)],
        )
        .expect("prepares");
        let address = launch.buffer_address("a").expect("buffer a exists");
        assert_eq!(launch.parameter_bytes(0), Some(&address.to_le_bytes()[..]));
        assert_eq!(launch.parameter_bytes(1), Some(&[2u8, 1][..]));
        assert_eq!(launch.parameter_bytes(2), Some(&[0u8, 0, 0x80, 0x3f][..]));
        assert_eq!(launch.parameter_bytes(3), Some(&(-2i64).to_le_bytes()[..]));
        assert_eq!(launch.parameter_bytes(4), None);
        for pointer in &launch.parameter_pointers {
            assert_eq!(*pointer as usize % 16, 0);
        }
        assert_eq!(launch.buffer_bytes("a"), Some(&[0u8, 0, 0][..]));
    }

    fn aligned_signature(params: &[(&str, u32, u32)]) -> KernelSignature {
        KernelSignature {
            static_shared_bytes: 0,
            name: "kernel".into(),
            params: params
                .iter()
                .map(|&(name, size_bytes, align_bytes)| ParamLayout { name: name.into(), size_bytes, align_bytes })
                .collect(),
        }
    }

    fn prepare_aggregate(args: &str, params: &[(&str, u32, u32)]) -> Result<PreparedLaunch, RuntimeError> {
        let text = format!(r#"{{"buffers": {{"tiles": {{"type": "u64", "len": 2}}}}, "args": [{args}]}}"#);
        let spec = LaunchSpec::from_json(&text).expect("the spec is valid");
        prepare(&spec, Path::new("."), &aligned_signature(params))
    }

    #[test]
    fn aggregates_are_padded_to_their_parameter_with_buffer_addresses_in_place() {
        let launch = prepare_aggregate(
            r#"{"fields": [{"buffer": "tiles"}, {"type": "u32", "value": 5}]}, {"bytes": ["0x2a"]}"#,
            &[("state", 24, 8), ("op", 1, 1)],
        )
        .expect("prepares");
        let address = launch.buffer_address("tiles").expect("buffer tiles exists");
        let mut expected = vec![0u8; 24];
        expected[..8].copy_from_slice(&address.to_le_bytes());
        expected[8] = 5;
        assert_eq!(launch.parameter_bytes(0), Some(expected.as_slice()));
        assert_eq!(launch.parameter_bytes(1), Some(&[0x2a][..]));
        assert_eq!(launch.parameter_embedded_buffers, [vec![(0, 0)], vec![]]);
        assert_eq!(launch.parameter_pointers[0] as usize % 8, 0);
    }

    #[test]
    fn aggregates_are_checked_against_size_and_alignment() {
        let message = |args: &str, params: &[(&str, u32, u32)]| match prepare_aggregate(args, params) {
            Ok(_) => panic!("{args} was prepared"),
            Err(error) => error.to_string(),
        };
        assert_eq!(
            message(r#"{"bytes": [1, 2, 3]}"#, &[("s", 4, 4)]),
            "args[0]: kernel parameter `s` is 4 bytes but 3 bytes were given"
        );
        assert_eq!(
            message(r#"{"fields": [{"buffer": "tiles"}, {"type": "u8", "value": 1}]}"#, &[("s", 8, 8)]),
            "args[0]: kernel parameter `s` is 8 bytes but the fields reach 9 bytes"
        );
        assert_eq!(
            message(r#"{"fields": [{"type": "u64", "value": 1}]}"#, &[("s", 8, 4)]),
            "args[0]: kernel parameter `s` is aligned to 4 bytes but a field needs 8 (give the fields as \
             `bytes` to pass them unaligned)"
        );
        // Raw bytes need no alignment, and fields may leave the end of the parameter zero.
        assert!(prepare_aggregate(r#"{"bytes": [1, 2, 3, 4, 5, 6, 7, 8]}"#, &[("s", 8, 1)]).is_ok());
        assert!(prepare_aggregate(r#"{"fields": [{"type": "u16", "value": 1}]}"#, &[("s", 64, 2)]).is_ok());
    }

    #[test]
    fn argument_mismatches_are_reported_before_launch() {
        assert_eq!(
            error(r#"{"args": [{"type": "u32", "value": 1}]}"#, &[("a", 8), ("b", 8)]),
            "kernel `kernel` has 2 parameters but `args` gives 1"
        );
        // More arguments than parameters: the extra ones are ignored, as cuLaunchKernel does.
        let prepared =
            prepare_text(r#"{"args": [{"type": "u32", "value": 1}, {"type": "u32", "value": 2}]}"#, &[("a", 4)])
                .expect("extra arguments are accepted");
        assert_eq!(prepared.ignored_arguments(), 1);
        assert_eq!(
            error(
                r#"{"args": [{"type": "u32", "value": 1}, {"type": "u32", "value": 1}, {"type": "u64", "value": 1}]}"#,
                &[("a", 4), ("b", 4), ("n", 4)]
            ),
            "args[2]: kernel parameter `n` is 4 bytes but a u64 value (8 bytes) was given"
        );
        assert_eq!(
            error(r#"{"buffers": {"in": {"type": "u8", "len": 1}}, "args": [{"buffer": "in"}]}"#, &[("p", 2)]),
            "args[0]: kernel parameter `p` is 2 bytes but buffer `in` passes an address (8 \
             bytes, or 4 for .address_size 32 kernels)"
        );
        assert_eq!(
            error(r#"{"kernel": "other"}"#, &[]),
            "kernel: the spec names `other` but the kernel given is `kernel`"
        );
    }

    #[test]
    fn programmatic_specs_are_checked_too() {
        let mut spec = LaunchSpec::from_json("{}").expect("valid");
        spec.block = [2048, 1, 1];
        let result = prepare(&spec, Path::new("."), &signature(&[]));
        assert!(matches!(result, Err(RuntimeError::Field { field: "block", .. })));
        spec.block = [1, 1, 1];
        spec.buffers.push(BufferSpec {
            name: "x".into(),
            element: ElementType::U8,
            contents: BufferContents::Elements(vec![256]),
        });
        let message =
            prepare(&spec, Path::new("."), &signature(&[])).map(|_| ()).expect_err("256 is not a u8").to_string();
        assert_eq!(message, "buffer `x`: element 0: 0x100 does not fit in u8");
    }

    #[test]
    fn file_buffers() {
        let folder = std::env::temp_dir().join(format!("ptxr-runtime-files-{}", std::process::id()));
        std::fs::create_dir_all(&folder).expect("temporary folder");
        let values: Vec<u8> = [1u32, 2, 0xdead_beef].iter().flat_map(|value| value.to_le_bytes()).collect();
        std::fs::write(folder.join("values.bin"), &values).expect("write input");
        std::fs::write(folder.join("odd.bin"), [1u8, 2, 3]).expect("write input");
        let spec =
            |buffer: &str| LaunchSpec::from_json(&format!(r#"{{"buffers": {{"in": {buffer}}}}}"#)).expect("valid spec");
        let prepared = |buffer: &str| prepare(&spec(buffer), &folder, &signature(&[]));
        let launch = prepared(r#"{"type": "u32", "file": "values.bin"}"#).expect("reads the file");
        assert_eq!(launch.buffer_bytes("in"), Some(&values[..]));
        assert!(prepared(r#"{"type": "u32", "file": "values.bin", "len": 3}"#).is_ok());
        let message = |buffer: &str| prepared(buffer).map(|_| ()).expect_err("fails").to_string();
        assert_eq!(
            message(r#"{"type": "u32", "file": "values.bin", "len": 4}"#),
            format!("buffer `in`: `len` is 4 but file `{}` holds 3", folder.join("values.bin").display())
        );
        assert_eq!(
            message(r#"{"type": "u16", "file": "odd.bin"}"#),
            format!(
                "buffer `in`: file `{}` is 3 bytes, not a whole number of 2-byte u16 elements",
                folder.join("odd.bin").display()
            )
        );
        let missing = message(r#"{"type": "u8", "file": "missing.bin"}"#);
        assert!(missing.starts_with("buffer `in`: cannot read file `"), "{missing}");
        assert!(missing.contains("missing.bin"), "{missing}");
        std::fs::remove_dir_all(&folder).expect("clean up");
    }

    #[test]
    fn huge_buffers_fail_cleanly() {
        let message = error(r#"{"buffers": {"big": {"type": "u64", "len": 4611686018427387904}}}"#, &[]);
        assert!(message.starts_with("buffer `big`: "), "{message}");
    }

    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    #[test]
    fn buffers_behind_32_bit_pointers_lie_below_4_gib() {
        let launch = prepare_text(
            r#"{"buffers": {"in": {"type": "u64", "data": [5]}, "out": {"type": "u64", "len": 1}},
                "args": [{"buffer": "in"}, {"buffer": "out"}]}"#,
            &[("input", 4), ("output", 4)],
        )
        .expect("prepares");
        for (index, name) in ["in", "out"].into_iter().enumerate() {
            let address = launch.buffer_address(name).expect("exists");
            assert!(address < 1 << 32);
            assert_eq!(launch.parameter_bytes(index), Some(&(address as u32).to_le_bytes()[..]));
        }
        assert_eq!(launch.buffer_bytes("in"), Some(&5u64.to_le_bytes()[..]));
    }
}
