//! Lowering one function: storage for its variables, a basic block per label, then each
//! statement in order. Guards become branches around the guarded instruction.

use std::collections::HashMap;

use inkwell::basic_block::BasicBlock;
use inkwell::types::BasicType;
use inkwell::values::{BasicValue, BasicValueEnum, FunctionValue, PointerValue};
use ptxr_frontend::ir::{self, GuardedInstruction, Instruction, Statement, VariableId};
use ptxr_frontend::syntax::ast::FunctionKind;
use ptxr_frontend::vocabulary::StateSpace;
use ptxr_frontend::{Diagnostic, Span};
use ptxr_intrinsics::{KernelParameters, Site};

use crate::error::{LoweringError, LoweringResult};
use crate::instructions;
use crate::module::{global_pointer, parameter_type, ModuleContext};

pub struct FunctionLowering<'a, 'ctx> {
    pub shared: &'a ModuleContext<'a, 'ctx>,
    /// The function's index in `ir::Module::functions`.
    pub function_index: u32,
    pub function: &'a ir::Function,
    pub llvm_function: FunctionValue<'ctx>,
    storage: HashMap<u32, PointerValue<'ctx>>,
    label_blocks: Vec<BasicBlock<'ctx>>,
    /// The block's shared-memory window, on targets that have one (loaded in the prologue).
    shared_window: Option<PointerValue<'ctx>>,
    /// The launch arguments this function received, where the module passes them
    /// (`ModuleContext::launch_arguments_parameter`).
    launch_arguments: Option<ptxr_intrinsics::LaunchArguments<'ctx>>,
    /// The condition code's carry flag `CC.CF` (an `i1`), in functions that use it. One alloca
    /// for the whole function keeps the carry across basic blocks and guards.
    carry_flag: Option<PointerValue<'ctx>>,
    /// The buffer through which `mma` and `ldmatrix` hand fragments to the target's matrix
    /// collective (`ptxr_runtime::abi::matrix_fragments`), in functions that use them.
    matrix_fragments: Option<PointerValue<'ctx>>,
    /// The thread's stop flag (an `i32`, non-zero once the thread has stopped inside a called
    /// `.func`), where the module has one (`ModuleContext::stop_flag_parameter`): the kernel's
    /// own alloca, or the address a `.func` received.
    stop_flag: Option<PointerValue<'ctx>>,
    /// Where the module keeps a private stack per thread (`ModuleContext::private_stack_bytes`):
    /// its stack pointer and floor, two `i64`s, the kernel's own or after the stop flag in its
    /// record (`instructions::stack::PrivateStack`).
    private_stack: Option<crate::instructions::stack::PrivateStack<'ctx>>,
    /// The instructions that write each variable, gathered on the first call that traces a
    /// string constant (`constant_string.rs`), then shared by the function's later calls.
    string_writers: std::cell::OnceCell<crate::instructions::constant_string::Writers<'a>>,
    /// The origin of the function's `.local` window, where it has one (`local_window`).
    local_window: std::cell::OnceCell<Option<VariableId>>,
}

impl<'a, 'ctx> FunctionLowering<'a, 'ctx> {
    pub fn new(
        shared: &'a ModuleContext<'a, 'ctx>,
        function_index: u32,
        function: &'a ir::Function,
        llvm_function: FunctionValue<'ctx>,
    ) -> Self {
        FunctionLowering {
            shared,
            function_index,
            function,
            llvm_function,
            storage: HashMap::new(),
            label_blocks: Vec::new(),
            shared_window: None,
            launch_arguments: None,
            carry_flag: None,
            matrix_fragments: None,
            stop_flag: None,
            private_stack: None,
            string_writers: std::cell::OnceCell::new(),
            local_window: std::cell::OnceCell::new(),
        }
    }

    pub fn target_name(&self) -> &'static str {
        self.shared.target.kind().name()
    }

    /// The instruction as written, opcode and modifiers (`mad.lo.s32`), for diagnostics.
    pub fn spelling(&self, guarded: &ir::GuardedInstruction) -> String {
        ir::instruction_spelling(self.shared.source, guarded.spelling)
    }

    pub fn site(&self) -> Site<'a, 'ctx> {
        Site {
            context: self.shared.context,
            module: self.shared.module,
            builder: self.shared.builder,
            function: self.llvm_function,
            launch_arguments: self.launch_arguments,
        }
    }

    pub fn variable(&self, id: VariableId) -> &'a ir::Variable {
        match id {
            VariableId::Global(index) => &self.shared.ptx.globals[index as usize],
            VariableId::Local(index) => self.function.variable(index),
        }
    }

    /// Where a variable lives: its alloca, or its global.
    pub fn storage(&self, id: VariableId, span: Span) -> LoweringResult<PointerValue<'ctx>> {
        if let (VariableId::Global(_), Some(offset)) = (id, self.shared_window_offset(id)) {
            return self.in_shared_window(offset, span);
        }
        let pointer = match id {
            VariableId::Global(_) => global_pointer(self.shared, id),
            VariableId::Local(index) => self.storage.get(&index).copied(),
        };
        pointer.ok_or_else(|| LoweringError::internal(format!("no storage for `{}`", self.variable(id).name), span))
    }

    /// Where a variable's address points when the program takes it (`mov` or `cvta` of its
    /// name, a generic access through it): its storage, except a kernel's parameters on targets
    /// that keep them in a `.param` window (`Target::kernel_parameter_addresses`).
    pub fn taken_address(&self, id: VariableId, span: Span) -> LoweringResult<PointerValue<'ctx>> {
        if let VariableId::Local(index) = id {
            let position = self.function.parameters.iter().position(|&parameter| parameter == index);
            if let (Some(position), Some(_)) = (position, self.kernel_parameter_addresses()) {
                return self
                    .shared
                    .target
                    .kernel_parameter_address(&self.site(), position as u32)
                    .map_err(|unsupported| LoweringError::unsupported(&unsupported.what, self.target_name(), span));
            }
        }
        self.storage(id, span)
    }

    /// The state space of a kernel parameter's address that this function takes, where the
    /// target keeps kernel parameters in a `.param` window and this function is a kernel.
    fn kernel_parameter_addresses(&self) -> Option<StateSpace> {
        if self.function.kind == FunctionKind::Entry {
            self.shared.target.kernel_parameter_addresses()
        } else {
            None
        }
    }

    /// The state space of the addresses of `.param` variables that this function can take
    /// (`mov`, then `cvta.param` or `ld.param` through a register): the kernel's `.param`
    /// window where the target keeps kernel parameters there (`kernel_parameter_addresses`),
    /// else the function's own copies, which PTX places in `.local` (ISA 7.8 section 5.1.6.4).
    pub fn parameter_addresses(&self) -> StateSpace {
        self.kernel_parameter_addresses().unwrap_or(StateSpace::Local)
    }

    /// The offset of a `.shared` variable in the block's window, on targets that have one.
    pub fn shared_window_offset(&self, id: VariableId) -> Option<u64> {
        if !self.shared.target.shared_variables_in_window() || self.variable(id).state_space != StateSpace::Shared {
            return None;
        }
        let key = match id {
            VariableId::Global(index) => ir::SharedVariable::Global(index),
            VariableId::Local(index) => ir::SharedVariable::Local { function: self.function_index, variable: index },
        };
        self.shared.shared_layout.offset(key)
    }

    /// The host pointer `offset` bytes into the block's shared window.
    pub fn in_shared_window(&self, offset: u64, span: Span) -> LoweringResult<PointerValue<'ctx>> {
        let offset = self.shared.context.i64_type().const_int(offset, false);
        self.in_shared_window_at(offset, span)
    }

    /// The host pointer at a shared-space address (an offset into the block's window).
    pub fn in_shared_window_at(
        &self,
        offset: inkwell::values::IntValue<'ctx>,
        span: Span,
    ) -> LoweringResult<PointerValue<'ctx>> {
        let base = self
            .shared_window
            .ok_or_else(|| LoweringError::internal("no shared-memory window in this function", span))?;
        // SAFETY: PTX shared addresses are byte offsets into the window; LLVM is told no bounds.
        Ok(unsafe { self.shared.builder.build_gep(self.shared.context.i8_type(), base, &[offset], "") }?)
    }

    /// The base of the block's shared window, on targets that have one.
    pub fn shared_window_base(&self) -> Option<PointerValue<'ctx>> {
        self.shared_window
    }

    /// The launch arguments this function received, to pass on to a callee.
    pub fn launch_arguments(&self) -> Option<inkwell::values::VectorValue<'ctx>> {
        self.launch_arguments.map(|arguments| arguments.value)
    }

    /// The `.local` variable whose storage is the origin of this function's `.local` window:
    /// where the function takes a 32-bit address of one of its `.local` variables (LLVM's
    /// short `.local` pointers, which Triton uses: `mov.b32 %SPL, __local_depot0`) and the
    /// target's `.local` pointers are wider. There every `.local` address the function computes
    /// is the 32-bit offset of the location from that storage (the thread's `.local` window of
    /// PTX), which `.local` accesses through registers and `cvta.local` add back. A function
    /// with `alloca`, whose `.local` addresses are the stack's own, keeps full addresses (and
    /// gets E0901 for the 32-bit one).
    pub fn local_window(&self) -> Option<VariableId> {
        *self.local_window.get_or_init(|| {
            if self.pointer_bits(self.address_space(StateSpace::Local)) <= 32 {
                return None;
            }
            let statements = self.function.body.iter().flatten();
            let instructions = statements.filter_map(|statement| match statement {
                Statement::Instruction(guarded) => Some(&guarded.instruction),
                Statement::Label(_) => None,
            });
            let mut origin = None;
            for instruction in instructions {
                match instruction {
                    Instruction::StackAllocate { .. } => return None,
                    Instruction::Move { ty, source, .. } if ty.bits() == 32 && origin.is_none() => {
                        if let ir::Value::AddressOf(id @ VariableId::Local(_)) = source.value {
                            if self.variable(id).state_space == StateSpace::Local {
                                origin = Some(id);
                            }
                        }
                    }
                    _ => {}
                }
            }
            origin
        })
    }

    /// One allocation for all the function's `.local` variables, where it has a `.local` window
    /// (`local_window`): a 32-bit address of one may reach another by the difference of their
    /// addresses, which LLVM allows only within one object. Returns it and each variable's
    /// offset (by variable index; 0 for the others), each aligned as the variable asks.
    fn local_frame(&self) -> LoweringResult<(PointerValue<'ctx>, Vec<u64>)> {
        let mut offsets = vec![0u64; self.function.variables.len()];
        let (mut size, mut frame_align) = (0u64, 1u32);
        for (index, variable) in self.function.variables.iter().enumerate() {
            if variable.state_space != StateSpace::Local {
                continue;
            }
            let align = variable.align.unwrap_or(variable.ty.bytes()).max(1);
            frame_align = frame_align.max(align);
            size = size.next_multiple_of(u64::from(align));
            offsets[index] = size;
            size += variable.size_bytes().max(1);
        }
        let context = self.shared.context;
        let frame_type = context.i8_type().array_type(size.max(1) as u32);
        let frame = self.shared.builder.build_alloca(frame_type, "local_window")?;
        set_alignment(frame, frame_align);
        Ok((frame, offsets))
    }

    /// One allocation for all a kernel's own copies of its parameters, where the module
    /// records their place for `isspacep` (`ModuleContext::kernel_parameter_window`), so that
    /// they are one range. Returns it, its bytes, and each parameter's offset (by variable
    /// index), each aligned as the parameter asks.
    fn kernel_parameter_frame(&self) -> LoweringResult<(PointerValue<'ctx>, u64, HashMap<u32, u64>)> {
        let mut offsets = HashMap::new();
        let (mut size, mut frame_align) = (0u64, 1u32);
        for &index in &self.function.parameters {
            let variable = self.function.variable(index);
            let align = variable.align.unwrap_or(variable.ty.bytes()).max(1);
            frame_align = frame_align.max(align);
            size = size.next_multiple_of(u64::from(align));
            offsets.insert(index, size);
            size += variable.size_bytes().max(1);
        }
        let frame_type = self.shared.context.i8_type().array_type(size.max(1) as u32);
        let frame = self.shared.builder.build_alloca(frame_type, "kernel_parameters")?;
        set_alignment(frame, frame_align);
        Ok((frame, size, offsets))
    }

    /// Lowers the body and returns every diagnostic found on the way.
    pub fn lower(mut self) -> Vec<Diagnostic> {
        let mut diagnostics = Vec::new();
        if let Err(error) = self.prologue() {
            return vec![error.diagnostic];
        }
        let statements = self.function.body.as_deref().unwrap_or_default();
        for statement in statements {
            let result = match statement {
                Statement::Label(label) => self.enter_label(*label),
                Statement::Instruction(instruction) => self.guarded(instruction),
            };
            if let Err(error) = result {
                diagnostics.push(error.diagnostic);
            }
        }
        if let Err(error) = self.epilogue() {
            diagnostics.push(error.diagnostic);
        }
        diagnostics
    }

    /// Allocas for every variable, incoming parameters stored into theirs, a block per label.
    fn prologue(&mut self) -> LoweringResult<()> {
        let context = self.shared.context;
        let builder = self.shared.builder;
        let entry = context.append_basic_block(self.llvm_function, "entry");
        builder.position_at_end(entry);
        let target_name = self.target_name();
        // A module without `.shared` variables has no shared memory to address: no window load.
        if self.shared.target.shared_variables_in_window() && !self.shared.shared_layout.is_empty() {
            let window = if self.shared.shared_window_parameter.is_some() {
                self.llvm_function
                    .get_last_param()
                    .ok_or_else(|| {
                        LoweringError::internal("the shared window parameter is missing", self.function.span)
                    })?
                    .into_pointer_value()
            } else {
                self.shared.target.shared_window_base(&self.site()).map_err(|unsupported| {
                    LoweringError::unsupported(&unsupported.what, target_name, self.function.span)
                })?
            };
            self.shared_window = Some(window);
        }
        if let Some(position) = crate::module::launch_arguments_position(self.shared, self.function) {
            let value = self
                .llvm_function
                .get_nth_param(position)
                .ok_or_else(|| {
                    LoweringError::internal("the launch arguments parameter is missing", self.function.span)
                })?
                .into_vector_value();
            let static_shared_bytes = self.shared.shared_layout.static_bytes;
            self.launch_arguments = Some(ptxr_intrinsics::LaunchArguments { value, static_shared_bytes });
        }
        let local_frame = self.local_window().map(|_| self.local_frame()).transpose()?;
        let parameter_frame = (self.function.kind == FunctionKind::Entry && self.shared.kernel_parameter_window)
            .then(|| self.kernel_parameter_frame())
            .transpose()?;
        if let (Some((frame, bytes, _)), Some(arguments)) = (&parameter_frame, self.launch_arguments) {
            let value = self
                .shared
                .target
                .record_kernel_parameter_window(&self.site(), arguments.value, *frame, *bytes)
                .map_err(|unsupported| {
                    LoweringError::unsupported(&unsupported.what, target_name, self.function.span)
                })?;
            self.launch_arguments = Some(ptxr_intrinsics::LaunchArguments { value, ..arguments });
        }
        for (index, variable) in self.function.variables.iter().enumerate() {
            let in_parameter_frame = parameter_frame
                .as_ref()
                .and_then(|(frame, _, offsets)| offsets.get(&(index as u32)).map(|&offset| (*frame, offset)));
            let pointer = match variable.state_space {
                StateSpace::Param if in_parameter_frame.is_some() => {
                    let (frame, offset) = in_parameter_frame
                        .ok_or_else(|| LoweringError::internal("no kernel parameter frame", variable.span))?;
                    let offset = context.i64_type().const_int(offset, false);
                    // SAFETY: the offset lies within the frame (`kernel_parameter_frame`).
                    unsafe { builder.build_in_bounds_gep(context.i8_type(), frame, &[offset], "") }?
                }
                StateSpace::Local if local_frame.is_some() => {
                    let (frame, offsets) = local_frame
                        .as_ref()
                        .ok_or_else(|| LoweringError::internal("no .local frame", variable.span))?;
                    let offset = context.i64_type().const_int(offsets[index], false);
                    // SAFETY: the offset lies within the frame (`local_frame`).
                    unsafe { builder.build_in_bounds_gep(context.i8_type(), *frame, &[offset], "") }?
                }
                StateSpace::Reg | StateSpace::Param => {
                    let storage_type = parameter_type(self.shared, variable);
                    let pointer = builder.build_alloca(storage_type, value_name(&variable.name))?;
                    if let Some(align) = variable.align {
                        set_alignment(pointer, align);
                    }
                    pointer
                }
                StateSpace::Local => {
                    let size = variable.size_bytes().max(1) as u32;
                    let pointer =
                        builder.build_alloca(context.i8_type().array_type(size), value_name(&variable.name))?;
                    set_alignment(pointer, variable.align.unwrap_or(variable.ty.bytes()).max(1));
                    pointer
                }
                StateSpace::Shared if self.shared.target.shared_variables_in_window() => {
                    let offset = self.shared_window_offset(VariableId::Local(index as u32)).ok_or_else(|| {
                        LoweringError::internal("a shared variable outside the layout", variable.span)
                    })?;
                    self.in_shared_window(offset, variable.span)?
                }
                StateSpace::Shared => {
                    self.shared.target.supports_shared_variables().map_err(|unsupported| {
                        LoweringError::unsupported(&unsupported.what, target_name, variable.span)
                    })?;
                    let size = variable.size_bytes().max(1) as u32;
                    let storage_type = context.i8_type().array_type(size);
                    let name = format!("{}.{}", self.function.name, variable.name);
                    let global = self.shared.module.add_global(
                        storage_type,
                        Some(self.shared.target.address_space(StateSpace::Shared)),
                        &name,
                    );
                    global.set_initializer(&storage_type.get_undef());
                    global.set_linkage(inkwell::module::Linkage::Internal);
                    global.set_alignment(variable.align.unwrap_or(variable.ty.bytes()).max(1));
                    global.as_pointer_value()
                }
                StateSpace::Global | StateSpace::Const => {
                    module_wide_variable(self.shared, self.function, variable)?.as_pointer_value()
                }
                other => {
                    return Err(LoweringError::unsupported(
                        &format!("{other} variables in functions"),
                        target_name,
                        variable.span,
                    ));
                }
            };
            self.storage.insert(index as u32, pointer);
        }
        let uses_carry_flag = self.function.body.as_deref().unwrap_or_default().iter().any(|statement| {
            matches!(statement, Statement::Instruction(instruction) if instruction.instruction.uses_carry_flag())
        });
        if uses_carry_flag {
            // PTX leaves the flag's initial value undefined; starting clear keeps runs deterministic.
            let flag = builder.build_alloca(context.bool_type(), "carry_flag")?;
            builder.build_store(flag, context.bool_type().const_zero())?;
            self.carry_flag = Some(flag);
        }
        let uses_matrix_fragments = self.function.body.as_deref().unwrap_or_default().iter().any(|statement| {
            matches!(
                statement,
                Statement::Instruction(GuardedInstruction {
                    instruction: Instruction::MatrixMultiplyAccumulate { .. }
                        | Instruction::WarpMatrixMultiplyAccumulate { .. }
                        | Instruction::LoadMatrix { .. },
                    ..
                })
            )
        });
        // Targets that build the matrix instructions from shuffles keep fragments in registers.
        let through_buffer = self.shared.target.matrix_lowering() == ptxr_intrinsics::MatrixLowering::Collective;
        if uses_matrix_fragments && through_buffer {
            // One buffer for the function, in the entry block so that it is a fixed part of the
            // frame; 8-aligned for `ldmatrix`'s 64-bit row address.
            let words = ptxr_runtime::abi::matrix_fragments::WORDS as u32;
            let buffer = builder.build_alloca(context.i32_type().array_type(words), "matrix_fragments")?;
            set_alignment(buffer, 8);
            self.matrix_fragments = Some(buffer);
        }
        let hidden = self.shared.target.hidden_parameter_types(context).len() as u32;
        if self.shared.stop_flag_parameter.is_some() {
            self.stop_flag = Some(match self.function.kind {
                FunctionKind::Entry => {
                    // With a private stack, a record of the flag and the stack.
                    let flag = if self.shared.private_stack_bytes.is_some() {
                        let record = builder.build_alloca(context.i64_type().array_type(3), "thread.stopped")?;
                        set_alignment(record, 8);
                        record
                    } else {
                        builder.build_alloca(context.i32_type(), "thread.stopped")?
                    };
                    builder.build_store(flag, context.i32_type().const_zero())?;
                    flag
                }
                FunctionKind::Func => self
                    .llvm_function
                    .get_nth_param(hidden + self.function.parameters.len() as u32)
                    .ok_or_else(|| LoweringError::internal("the stop flag parameter is missing", self.function.span))?
                    .into_pointer_value(),
            });
        }
        if let Some(bytes) = self.shared.private_stack_bytes {
            self.private_stack = Some(crate::instructions::stack::PrivateStack::prologue(self, bytes)?);
        }
        for (position, &index) in self.function.parameters.iter().enumerate() {
            let incoming = self
                .llvm_function
                .get_nth_param(hidden + position as u32)
                .ok_or_else(|| LoweringError::internal("missing LLVM parameter", self.function.span))?;
            let variable = self.function.variable(index);
            if crate::module::aggregate_by_reference(self.shared, self.function, variable) {
                // A `byval` pointer to the aggregate's bytes: copied into the parameter's own.
                let bytes = context.i64_type().const_int(variable.size_bytes(), false);
                let align = variable.align.unwrap_or(variable.ty.bytes()).max(1);
                builder
                    .build_memcpy(self.storage[&index], align, incoming.into_pointer_value(), align, bytes)
                    .map_err(|message| LoweringError::internal(message, variable.span))?;
            } else {
                builder.build_store(self.storage[&index], incoming)?;
            }
        }
        self.label_blocks = self
            .function
            .labels
            .iter()
            .map(|label| context.append_basic_block(self.llvm_function, &label.name))
            .collect();
        Ok(())
    }

    /// Falls off the end: returns, then hands kernels to the target.
    fn epilogue(&mut self) -> LoweringResult<()> {
        if !self.current_block_is_terminated() {
            self.build_return()?;
        }
        if self.function.kind == FunctionKind::Entry {
            let types =
                self.function.parameter_variables().map(|variable| parameter_type(self.shared, variable)).collect();
            let parameters = KernelParameters {
                types,
                cooperative: self.shared.cooperative,
                collectives_in_functions: self.shared.collectives_in_functions,
                counted_barriers: self.shared.counted_barriers,
            };
            self.shared.target.finish_kernel(&self.site(), &parameters).map_err(|unsupported| {
                LoweringError::unsupported(&unsupported.what, self.target_name(), self.function.span)
            })?;
        }
        Ok(())
    }

    pub fn current_block_is_terminated(&self) -> bool {
        self.shared.builder.get_insert_block().and_then(|block| block.get_terminator()).is_some()
    }

    /// Code after a branch or return is unreachable but still lowered (it may hold errors worth
    /// reporting); it goes into a fresh block that LLVM deletes.
    fn ensure_open_block(&self) {
        if self.current_block_is_terminated() {
            let block = self.shared.context.append_basic_block(self.llvm_function, "unreachable");
            self.shared.builder.position_at_end(block);
        }
    }

    fn enter_label(&mut self, label: ir::LabelId) -> LoweringResult<()> {
        let block = self.label_blocks[label.0 as usize];
        if !self.current_block_is_terminated() {
            self.shared.builder.build_unconditional_branch(block)?;
        }
        self.shared.builder.position_at_end(block);
        Ok(())
    }

    pub fn label_block(&self, label: ir::LabelId) -> BasicBlock<'ctx> {
        self.label_blocks[label.0 as usize]
    }

    fn guarded(&mut self, instruction: &GuardedInstruction) -> LoweringResult<()> {
        self.ensure_open_block();
        let Some(guard) = &instruction.guard else {
            return instructions::lower(self, instruction);
        };
        let builder = self.shared.builder;
        let predicate = self.load_register(guard.predicate_id(), instruction.span)?.into_int_value();
        let condition = if guard.negated { builder.build_not(predicate, "")? } else { predicate };
        let continue_block = self.shared.context.append_basic_block(self.llvm_function, "");
        if let Instruction::Branch { target } = instruction.instruction {
            // `@p bra L` is a conditional branch, not a branch inside an `if`.
            builder.build_conditional_branch(condition, self.label_block(target), continue_block)?;
            builder.position_at_end(continue_block);
            return Ok(());
        }
        let then_block = self.shared.context.append_basic_block(self.llvm_function, "");
        builder.build_conditional_branch(condition, then_block, continue_block)?;
        builder.position_at_end(then_block);
        let result = instructions::lower(self, instruction);
        if !self.current_block_is_terminated() {
            builder.build_unconditional_branch(continue_block)?;
        }
        builder.position_at_end(continue_block);
        result
    }

    /// `ret`: returns the return parameters' values from a `.func`, nothing from a kernel.
    pub fn build_return(&self) -> LoweringResult<()> {
        let builder = self.shared.builder;
        if let Some(stack) = self.private_stack {
            stack.give_back(self)?;
        }
        let mut values: Vec<BasicValueEnum<'ctx>> = Vec::new();
        for &index in &self.function.return_parameters {
            let variable = self.function.variable(index);
            let storage_type = parameter_type(self.shared, variable);
            values.push(builder.build_load(storage_type, self.storage[&index], value_name(&variable.name))?);
        }
        match values.as_slice() {
            [] => builder.build_return(None)?,
            [single] => builder.build_return(Some(single))?,
            many => builder.build_aggregate_return(many)?,
        };
        Ok(())
    }

    /// The matrix fragment buffer; present whenever the function has `mma` or `ldmatrix` and the
    /// target computes them through `Target::matrix_collective`.
    pub fn matrix_fragments(&self, span: Span) -> LoweringResult<PointerValue<'ctx>> {
        self.matrix_fragments.ok_or_else(|| LoweringError::internal("no matrix fragment buffer in this function", span))
    }

    /// The thread's stop flag, where the module keeps one (see the field).
    /// The writers of each variable of the function, for tracing string constants; gathered once.
    pub(crate) fn string_writers(&self) -> &crate::instructions::constant_string::Writers<'a> {
        self.string_writers.get_or_init(|| crate::instructions::constant_string::Writers::of(self.function))
    }

    pub fn stop_flag(&self) -> Option<PointerValue<'ctx>> {
        self.stop_flag
    }

    /// The thread's private stack, where the module keeps one (see the field).
    pub(crate) fn private_stack(&self) -> Option<crate::instructions::stack::PrivateStack<'ctx>> {
        self.private_stack
    }

    /// The carry flag's alloca; present whenever the function has a carry instruction.
    pub fn carry_flag(&self, span: Span) -> LoweringResult<PointerValue<'ctx>> {
        self.carry_flag.ok_or_else(|| LoweringError::internal("no carry flag in this function", span))
    }

    /// Loads a register with its declared type.
    pub fn load_register(&self, id: VariableId, span: Span) -> LoweringResult<BasicValueEnum<'ctx>> {
        let variable = self.variable(id);
        let value_type = self.shared.value_type(variable.ty);
        let name = value_name(&variable.name);
        Ok(self.shared.builder.build_load(value_type.as_basic_type_enum(), self.storage(id, span)?, name)?)
    }
}

fn set_alignment(pointer: PointerValue<'_>, align: u32) {
    if let Some(instruction) = pointer.as_instruction_value() {
        let _ = instruction.set_alignment(align);
    }
}

/// The LLVM name for a PTX name: without the `%` sigil, so that `%r1` prints as `%r1`, not
/// `%"%r1"`.
pub fn value_name(name: &str) -> &str {
    name.trim_start_matches('%')
}

/// The one module-wide instance of a `.global` or `.const` variable declared in `function`, as
/// PTX gives them, named `FUNCTION.NAME`: declared on first use (by the function's prologue,
/// or earlier by `isspacep.const`, which needs every `.const` variable's range).
pub fn module_wide_variable<'ctx>(
    shared: &ModuleContext<'_, 'ctx>,
    function: &ir::Function,
    variable: &ir::Variable,
) -> LoweringResult<inkwell::values::GlobalValue<'ctx>> {
    let name = format!("{}.{}", function.name, variable.name);
    if let Some(global) = shared.module.get_global(&name) {
        return Ok(global);
    }
    let global = crate::module::declare_global(shared, variable, &name)?;
    crate::module::initialize_addresses(shared, variable, global)?;
    Ok(global)
}
