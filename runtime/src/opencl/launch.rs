//! One grid on an OpenCL device: the SPIR-V program built for the device, the buffers copied
//! into SVM allocations, every parameter set from the launch's packed bytes (buffer addresses
//! replaced by the allocations' addresses), an NDRange of grid x block work-items in work-groups
//! of the block's shape, timed by the queue's profiling, and the buffers copied back.

use std::ffi::c_void;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use opencl3::command_queue::{CommandQueue, CL_QUEUE_PROFILING_ENABLE};
use opencl3::context::Context;
use opencl3::device::Device;
use opencl3::error_codes::ClError;
use opencl3::error_codes::CL_INVALID_KERNEL_NAME;
use opencl3::kernel::{Kernel, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, CL_KERNEL_EXEC_INFO_SVM_PTRS};
use opencl3::program::Program;
use opencl3::types::{cl_bool, CL_TRUE};

use super::device::SelectedDevice;
use super::svm::SvmBuffer;
use crate::abi::opencl::{
    CLOCK_CALIBRATION_KERNEL, STACK_BYTES_PER_WORK_ITEM, STOPPED_BY_ASSERTION, STOPPED_BY_CALL_OF_NO_FUNCTION,
    STOPPED_BY_COUNTED_BARRIER_OF_PART_OF_THE_BLOCK, STOPPED_BY_STACK_OVERFLOW, TRAP_STATUS_KERNEL,
};
use crate::error::RuntimeError;
use crate::launch::PreparedLaunch;
use crate::report::LaunchReport;

/// A device's context and queue, made on first use and kept for the life of the process: Intel's
/// CPU runtime (2026.2) crashes when contexts are created and released repeatedly in one process,
/// and one context per device is also what CUDA-style programs expect. The mutex makes launches
/// on a device take turns.
struct Session {
    context: Context,
    queue: CommandQueue,
}

/// The sessions made so far, by device id.
type Sessions = Mutex<Vec<(usize, &'static Mutex<Session>)>>;

fn session(device: &SelectedDevice) -> Result<&'static Mutex<Session>, RuntimeError> {
    static SESSIONS: OnceLock<Sessions> = OnceLock::new();
    let mut sessions = SESSIONS.get_or_init(|| Mutex::new(Vec::new())).lock().unwrap_or_else(PoisonError::into_inner);
    let key = device.id as usize;
    if let Some((_, session)) = sessions.iter().find(|(id, _)| *id == key) {
        return Ok(session);
    }
    let context = Context::from_device(&Device::new(device.id)).map_err(failed("cannot create an OpenCL context"))?;
    let queue = CommandQueue::create_default_with_properties(&context, CL_QUEUE_PROFILING_ENABLE, 0)
        .map_err(failed("cannot create an OpenCL command queue"))?;
    // Leaked on purpose: see `Session`.
    let session: &'static Mutex<Session> = Box::leak(Box::new(Mutex::new(Session { context, queue })));
    sessions.push((key, session));
    Ok(session)
}

/// How a work-item of the program stopped (`abi::opencl::STOPPED_BY_*`), 0 if none did: the
/// flag that its trap status kernel reads (`abi::opencl::TRAP_STATUS_KERNEL`; a module that
/// cannot stop has no such kernel).
fn stop_status(context: &Context, queue: &CommandQueue, program: &Program) -> Result<u32, RuntimeError> {
    let kernel = match Kernel::create(program, TRAP_STATUS_KERNEL) {
        Ok(kernel) => kernel,
        Err(error) if error.0 == CL_INVALID_KERNEL_NAME => return Ok(0),
        Err(error) => return Err(failed("cannot create the trap status kernel")(error)),
    };
    let status = SvmBuffer::with_contents(context, "trap status", &[0; 4])?;
    // SAFETY: argument 0 is the kernel's `global uint *`, and the allocation is 4 bytes.
    unsafe { kernel.set_arg_svm_pointer(0, status.pointer()) }
        .map_err(failed("cannot pass the trap status to its kernel"))?;
    let one = [1usize; 3];
    // SAFETY: the argument is set; the sizes are three-element arrays.
    let event =
        unsafe { queue.enqueue_nd_range_kernel(kernel.get(), 3, std::ptr::null(), one.as_ptr(), one.as_ptr(), &[]) }
            .map_err(failed("cannot launch the trap status kernel"))?;
    event.wait().map_err(failed("the trap status kernel failed"))?;
    let mut flag = [0u8; 4];
    status.copy_to(&mut flag);
    Ok(u32::from_le_bytes(flag))
}

/// How the device clock relates to the host's: `%globaltimer`'s part of the launch arguments.
#[derive(Clone, Copy, Debug)]
struct TimerOrigin {
    /// Nanoseconds since the Unix epoch, no later than the device clock read `clock`.
    nanoseconds: u64,
    clock: u64,
    nanoseconds_per_tick: f64,
}

/// The host's clock, nanoseconds since the Unix epoch (the CPU target's `%globaltimer`).
fn host_nanoseconds() -> u64 {
    let since_epoch = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    u64::try_from(since_epoch.as_nanos()).unwrap_or(u64::MAX)
}

/// How long apart the two reads of the device clock are: the rate's error is at most the time
/// an enqueue of the calibration kernel takes over this (tens of microseconds over 20 ms on
/// Intel's CPU runtime, docs/TARGETS.md).
const CALIBRATION_SPACING: Duration = Duration::from_millis(20);
/// How many times each end of the calibration reads the device clock, keeping the read with the
/// narrowest bracket.
const CALIBRATION_READS: usize = 5;

/// Relates the device clock to the host's through the program's calibration kernel
/// (`abi::opencl::CLOCK_CALIBRATION_KERNEL`), in a module that reads `%globaltimer`, or
/// `None` in one that does not: the clock is read at two ends [`CALIBRATION_SPACING`] apart,
/// each read between two readings of the host clock, the narrowest of
/// [`CALIBRATION_READS`] at each end. The rate is the host time between the
/// readings' midpoints over the ticks between them; the origin is the second read, with the
/// host time before it, so that the timer never runs ahead of the host's clock at the origin.
fn calibrate_clock(
    context: &Context,
    queue: &CommandQueue,
    program: &Program,
) -> Result<Option<TimerOrigin>, RuntimeError> {
    let kernel = match Kernel::create(program, CLOCK_CALIBRATION_KERNEL) {
        Ok(kernel) => kernel,
        Err(error) if error.0 == CL_INVALID_KERNEL_NAME => return Ok(None),
        Err(error) => return Err(failed("cannot create the clock calibration kernel")(error)),
    };
    let clock = SvmBuffer::with_contents(context, "device clock", &[0; 8])?;
    // SAFETY: argument 0 is the kernel's `global ulong *`, and the allocation is 8 bytes.
    unsafe { kernel.set_arg_svm_pointer(0, clock.pointer()) }
        .map_err(failed("cannot pass the clock to its calibration kernel"))?;
    let read = || -> Result<(u64, u64, u64), RuntimeError> {
        let one = [1usize; 3];
        let before = host_nanoseconds();
        // SAFETY: the argument is set; the sizes are three-element arrays.
        let event = unsafe {
            queue.enqueue_nd_range_kernel(kernel.get(), 3, std::ptr::null(), one.as_ptr(), one.as_ptr(), &[])
        }
        .map_err(failed("cannot launch the clock calibration kernel"))?;
        event.wait().map_err(failed("the clock calibration kernel failed"))?;
        let after = host_nanoseconds();
        let mut ticks = [0u8; 8];
        clock.copy_to(&mut ticks);
        Ok((before, u64::from_le_bytes(ticks), after))
    };
    // Of several reads, the one whose host readings lie closest together: a thread of this
    // process descheduled between them widens the bracket (by milliseconds on a busy host).
    let narrowest = || -> Result<(u64, u64, u64), RuntimeError> {
        let mut best = read()?;
        for _ in 1..CALIBRATION_READS {
            let next = read()?;
            if next.2 - next.0 < best.2 - best.0 {
                best = next;
            }
        }
        Ok(best)
    };
    let (first_before, first_clock, first_after) = narrowest()?;
    std::thread::sleep(CALIBRATION_SPACING);
    let (second_before, second_clock, second_after) = narrowest()?;
    let host_span = (second_before + second_after) / 2 - (first_before + first_after) / 2;
    if second_clock <= first_clock || host_span == 0 {
        return Err(RuntimeError::OpenCl {
            message: format!(
                "the device clock (clock_read_device) did not advance over {} ms ({first_clock} then {second_clock}), so %globaltimer cannot be derived from it",
                CALIBRATION_SPACING.as_millis()
            ),
        });
    }
    Ok(Some(TimerOrigin {
        nanoseconds: second_before,
        clock: second_clock,
        nanoseconds_per_tick: host_span as f64 / (second_clock - first_clock) as f64,
    }))
}

fn failed(what: &str) -> impl Fn(ClError) -> RuntimeError + '_ {
    move |error| RuntimeError::OpenCl { message: format!("{what}: {error}") }
}

impl PreparedLaunch {
    /// Runs the launch's grid on `device` with the kernel of the SPIR-V module `spirv`, whose
    /// kernels take the launch arguments (`abi::opencl::launch_arguments`) where
    /// `takes_launch_arguments` says so (ptxr's lowering decides it from the module:
    /// `ptxr_lowering::kernels_take_launch_arguments`). The buffers hold the results
    /// afterwards, as after [`PreparedLaunch::run`]; the report's time is the kernel's
    /// execution as the device's profiling measures it.
    pub fn run_opencl(
        &mut self,
        device: &SelectedDevice,
        spirv: &[u8],
        takes_launch_arguments: bool,
    ) -> Result<LaunchReport, RuntimeError> {
        if self.cooperative {
            return Err(crate::grid_workspace::unsupported_on_opencl());
        }
        if self.buffers.iter_mut().any(|buffer| Arc::get_mut(&mut buffer.memory).is_none()) {
            return Err(RuntimeError::BuffersInUse);
        }
        let session = session(device)?.lock().unwrap_or_else(PoisonError::into_inner);
        let (context, queue) = (&session.context, &session.queue);
        let mut program =
            Program::create_from_il(context, spirv).map_err(failed("the OpenCL device refused the SPIR-V module"))?;
        // PTX's div.rn and sqrt.rn are correctly rounded; OpenCL allows less unless asked.
        if let Err(error) = program.build(context.devices(), "-cl-fp32-correctly-rounded-divide-sqrt") {
            let log = program.get_build_log(device.id).unwrap_or_default();
            return Err(RuntimeError::OpenCl {
                message: format!(
                    "building the SPIR-V module for {} failed ({error}):\n{}",
                    device.description.name,
                    log.trim()
                ),
            });
        }
        let kernel = Kernel::create(&program, &self.kernel)
            .map_err(failed(&format!("the SPIR-V module has no kernel `{}`", self.kernel)))?;

        let in_place = self.has_32_bit_addresses();
        if in_place && !device.description.system_svm {
            return Err(RuntimeError::OpenCl {
                message: format!(
                    "OpenCL device {} ({}) has no fine-grained system SVM, which ptxr needs to pass the \
                     32-bit buffer addresses of an .address_size 32 kernel",
                    device.description.index, device.description.name
                ),
            });
        }
        // With 32-bit addresses the kernel uses the host buffers, which `prepare` placed below
        // 4 GiB, in place (fine-grained system SVM: any host address is a device address);
        // otherwise each buffer is copied into an SVM allocation, wherever that lands.
        let allocations = if in_place {
            Vec::new()
        } else {
            self.buffers
                .iter()
                .map(|buffer| SvmBuffer::with_contents(context, &buffer.name, buffer.memory.as_slice()))
                .collect::<Result<Vec<_>, _>>()?
        };
        // Each texture's descriptor, pointing at its buffer's SVM copy (or, in place, at the
        // host buffer that the CPU's descriptor already points at).
        let descriptors = self
            .textures
            .iter()
            .map(|texture| {
                let mut descriptor = *texture.descriptor;
                if let Some(allocation) = allocations.get(texture.buffer) {
                    descriptor.data = allocation.address();
                }
                SvmBuffer::with_contents(context, "a texture descriptor", &descriptor.to_bytes())
            })
            .collect::<Result<Vec<_>, _>>()?;
        for index in 0..self.parameter_buffers.len() {
            let bytes = match (self.parameter_buffers[index], self.parameter_textures.get(index).copied().flatten()) {
                (Some(buffer), _) if !in_place => allocations[buffer].address().to_le_bytes().to_vec(),
                (_, Some(texture)) => descriptors[texture].address().to_le_bytes().to_vec(),
                _ => {
                    let mut bytes = self.parameter_bytes(index).unwrap_or_default().to_vec();
                    // An aggregate's buffer addresses, moved to the buffers' SVM copies.
                    if !in_place {
                        for &(offset, buffer) in &self.parameter_embedded_buffers[index] {
                            bytes[offset..offset + 8].copy_from_slice(&allocations[buffer].address().to_le_bytes());
                        }
                    }
                    bytes
                }
            };
            // SAFETY: `bytes` is exactly the parameter's size, as the kernel declares it.
            unsafe {
                opencl3::kernel::set_kernel_arg(
                    kernel.get(),
                    index as u32,
                    bytes.len(),
                    bytes.as_ptr().cast::<c_void>(),
                )
            }
            .map_err(|code| RuntimeError::OpenCl {
                message: format!("cannot set kernel parameter {index} (error {code})"),
            })?;
        }
        if in_place {
            let enabled: cl_bool = CL_TRUE;
            // SAFETY: the value is a cl_bool, as the query requires.
            unsafe {
                opencl3::kernel::set_kernel_exec_info(
                    kernel.get(),
                    CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM,
                    std::mem::size_of::<cl_bool>(),
                    (&raw const enabled).cast::<c_void>(),
                )
            }
            .map_err(|code| RuntimeError::OpenCl {
                message: format!("cannot let the kernel use host memory (error {code})"),
            })?;
        }
        let launch_arguments = usize::from(takes_launch_arguments);
        let launch_buffers = if takes_launch_arguments {
            let timer = calibrate_clock(context, queue, &program)?;
            let table = self.launch_buffers_table(context, &allocations)?;
            self.set_launch_arguments(&kernel, timer, &table)?;
            Some(table)
        } else {
            None
        };
        self.set_shared_window(&kernel, launch_arguments)?;
        // The kernel reaches the buffers through addresses in integer parameters, which OpenCL
        // must be told about.
        let pointers: Vec<*mut c_void> =
            allocations.iter().chain(&launch_buffers).chain(&descriptors).map(SvmBuffer::pointer).collect();
        if !pointers.is_empty() {
            // SAFETY: the array lists live SVM allocations of this context.
            unsafe {
                opencl3::kernel::set_kernel_exec_info(
                    kernel.get(),
                    CL_KERNEL_EXEC_INFO_SVM_PTRS,
                    std::mem::size_of_val(pointers.as_slice()),
                    pointers.as_ptr().cast::<c_void>(),
                )
            }
            .map_err(|code| RuntimeError::OpenCl {
                message: format!("cannot pass the buffers to the kernel (error {code})"),
            })?;
        }

        let mut global = [0usize; 3];
        for ((work_items, &blocks), &threads) in global.iter_mut().zip(&self.grid).zip(&self.block) {
            *work_items = (blocks as usize).checked_mul(threads as usize).ok_or_else(|| RuntimeError::OpenCl {
                message: "the grid has more work-items than fit in size_t".into(),
            })?;
        }
        let local = self.block.map(|size| size as usize);
        // SAFETY: every parameter is set; the sizes are three-element arrays.
        let event = unsafe {
            queue.enqueue_nd_range_kernel(kernel.get(), 3, std::ptr::null(), global.as_ptr(), local.as_ptr(), &[])
        }
        .map_err(failed("the OpenCL device did not launch the kernel"))?;
        event.wait().map_err(failed("the kernel failed on the OpenCL device"))?;
        // The kernel's `printf` text (Intel's CPU runtime writes it through the C library's
        // `stdout`, fully buffered when that is a file or a pipe) must come before ptxr's own
        // output, as the CPU target's does: flushing every C stream puts it there.
        // SAFETY: `fflush(NULL)` takes no pointer of ours.
        unsafe { libc::fflush(std::ptr::null_mut()) };
        let elapsed = match (event.profiling_command_start(), event.profiling_command_end()) {
            (Ok(start), Ok(end)) => Duration::from_nanos(end.saturating_sub(start)),
            _ => Duration::ZERO,
        };

        match stop_status(context, queue, &program)? {
            0 => {}
            STOPPED_BY_ASSERTION => {
                return Err(RuntimeError::Launch {
                    message: "a thread failed an assertion (`__assertfail`; OpenCL keeps its message on the device)"
                        .to_string(),
                })
            }
            STOPPED_BY_CALL_OF_NO_FUNCTION => {
                return Err(RuntimeError::Launch {
                    message: "a thread made an indirect call through an address that is no function of the module"
                        .to_string(),
                })
            }
            STOPPED_BY_COUNTED_BARRIER_OF_PART_OF_THE_BLOCK => {
                return Err(RuntimeError::Launch {
                    message: "a thread reached a barrier whose thread count is not the block's (on OpenCL a barrier takes the whole work-group)"
                        .to_string(),
                })
            }
            STOPPED_BY_STACK_OVERFLOW => {
                return Err(RuntimeError::Launch {
                    message: format!(
                        "a thread's `alloca` needed more than the {} KiB of private memory that ptxr gives each work-item's `alloca`s on OpenCL",
                        STACK_BYTES_PER_WORK_ITEM >> 10
                    ),
                })
            }
            _ => return Err(RuntimeError::Launch { message: "the kernel executed `trap`".to_string() }),
        }
        for (buffer, allocation) in self.buffers.iter_mut().zip(&allocations) {
            let memory = Arc::get_mut(&mut buffer.memory).ok_or(RuntimeError::BuffersInUse)?;
            allocation.copy_to(memory.with_guard_zone_mut());
        }
        Ok(self.report(elapsed))
    }

    /// Whether a buffer is passed through a 4-byte parameter (an `.address_size 32` kernel).
    fn has_32_bit_addresses(&self) -> bool {
        (0..self.parameter_buffers.len()).any(|index| {
            self.parameter_buffers[index].is_some() && self.parameter_bytes(index).map_or(0, <[u8]>::len) == 4
        })
    }

    /// Passes the launch arguments (`abi::opencl::launch_arguments`), the kernel argument
    /// right after the PTX parameters: a fresh `%gridid` from the process's launch counter,
    /// which the CPU's launches count too, the launch's dynamic shared bytes, the clock's
    /// calibration where the module has the calibration kernel, and the table of the launch's
    /// buffers (`launch_buffers_table`).
    fn set_launch_arguments(
        &self,
        kernel: &Kernel,
        timer: Option<TimerOrigin>,
        launch_buffers: &SvmBuffer<'_>,
    ) -> Result<(), RuntimeError> {
        use crate::abi::opencl::launch_arguments as lanes;
        let mut arguments = [0u64; lanes::LANES as usize];
        arguments[lanes::GRID_ID as usize] = crate::launch::next_grid_id();
        arguments[lanes::DYNAMIC_SHARED_BYTES as usize] = u64::from(self.shared_bytes);
        arguments[lanes::LAUNCH_BUFFERS as usize] = launch_buffers.address();
        if let Some(timer) = timer {
            arguments[lanes::TIMER_ORIGIN_NANOSECONDS as usize] = timer.nanoseconds;
            arguments[lanes::TIMER_ORIGIN_CLOCK as usize] = timer.clock;
            arguments[lanes::NANOSECONDS_PER_CLOCK_TICK as usize] = timer.nanoseconds_per_tick.to_bits();
        }
        let index = self.parameter_buffers.len();
        // SAFETY: the argument is the kernel's `ulong8`, and `arguments` is exactly its bytes.
        unsafe {
            opencl3::kernel::set_kernel_arg(
                kernel.get(),
                index as u32,
                std::mem::size_of_val(&arguments),
                arguments.as_ptr().cast::<c_void>(),
            )
        }
        .map_err(|code| RuntimeError::OpenCl { message: format!("cannot pass the launch arguments (error {code})") })
    }

    /// The table of the launch's buffers that `isspacep.global` reads
    /// (`abi::opencl::launch_arguments::LAUNCH_BUFFERS`): their count, then each one's range as
    /// the kernel addresses it, its SVM copy or (`allocations` empty) the host buffer itself,
    /// without the guard zone, as the CPU runtime's `ptxr_is_global_address` has them.
    fn launch_buffers_table<'c>(
        &self,
        context: &'c Context,
        allocations: &[SvmBuffer<'_>],
    ) -> Result<SvmBuffer<'c>, RuntimeError> {
        let mut words = vec![self.buffers.len() as u64];
        for (index, buffer) in self.buffers.iter().enumerate() {
            let start = allocations.get(index).map_or_else(|| buffer.memory.address(), SvmBuffer::address);
            words.extend([start, start + buffer.memory.len() as u64]);
        }
        let bytes: Vec<u8> = words.iter().flat_map(|word| word.to_le_bytes()).collect();
        SvmBuffer::with_contents(context, "the launch's buffer table", &bytes)
    }

    /// Sizes the block's shared window: a SPIR-V kernel of a module with shared memory takes it
    /// as one `__local` argument after its PTX parameters and the launch arguments, if it takes
    /// those (`launch_arguments` is 1 then, else 0; docs/TARGETS.md), which holds the static
    /// `.shared` variables and then the launch's dynamic shared memory.
    fn set_shared_window(&self, kernel: &Kernel, launch_arguments: usize) -> Result<(), RuntimeError> {
        let parameters = self.parameter_buffers.len() + launch_arguments;
        let arguments = kernel.num_args().map_err(failed("cannot count the kernel's arguments"))? as usize;
        if arguments == parameters {
            return Ok(());
        }
        if arguments != parameters + 1 {
            return Err(RuntimeError::OpenCl {
                message: format!(
                    "kernel `{}` takes {arguments} OpenCL arguments for {} PTX parameters{}",
                    self.kernel,
                    self.parameter_buffers.len(),
                    if launch_arguments == 1 { " and the launch arguments" } else { "" }
                ),
            });
        }
        // OpenCL refuses a zero-sized local argument; a module whose only shared variable is an
        // unsized array launched without dynamic shared memory never touches the byte.
        let bytes = (self.static_shared_bytes as usize + self.shared_bytes as usize).max(1);
        // SAFETY: the index is the kernel's last argument, a `__local` pointer.
        unsafe { kernel.set_arg_local_buffer(parameters as u32, bytes) }.map_err(|error| RuntimeError::OpenCl {
            message: format!("cannot give the kernel {bytes} bytes of shared memory: {error}"),
        })
    }
}
