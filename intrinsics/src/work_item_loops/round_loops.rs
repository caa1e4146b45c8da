//! The loops of a kernel body that never waits, and which of them run in rounds
//! (`iteration_major.rs`): those with a thread-uniform trip structure that touch memory
//! without atomics.
//!
//! Rounds pay off when every thread of the block runs about as many iterations as the others
//! (a thread that finishes early leaves the others to the runtime's general path, a return
//! to the runtime per round) and when an iteration touches memory (whose order is what rounds
//! improve; a loop of arithmetic alone would only lose its registers to the state arrays). So
//! a loop runs in rounds when its latch leaves or repeats on a comparison of an induction
//! variable, which the loop only ever advances by a block-uniform step, with a block-uniform
//! bound, and when it loads or stores memory other than registers, without atomics or fences
//! (their cost does not depend on the order, and LLVM keeps no state in registers across them:
//! rounds made a grid-stride histogram some 20% slower). The step must also depend
//! on the launch's shape (`%ntid`, `%nctaid`): grid- and block-stride loops (whose threads'
//! trip counts differ by at most one, and whose neighbouring threads touch neighbouring
//! addresses in each round) are such loops, while a loop with a constant step usually walks
//! each thread's own contiguous range, which one thread at a time reads in order (rounds
//! made a per-thread row sum twice as slow). Block-uniform
//! values are built from constants, the kernel's parameters and the context's `%ctaid`,
//! `%nctaid` and `%ntid`, directly or through registers (allocas) stored once, outside every
//! loop, with such a value.
//!
//! The body is lowering's: registers are allocas read and written by loads and stores, and
//! the hidden parameters are the context, then `%tid.x`, `%tid.y`, `%tid.z`.

use std::collections::{HashMap, HashSet};

use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;

use crate::resumable::{blocks, instructions};

/// How deep the search for a value's uniformity goes before it answers no.
const UNIFORMITY_DEPTH: u32 = 32;

/// An edge of the control-flow graph that goes back to a block still being visited in a
/// depth-first walk from the entry: every cycle contains one, and in a reducible graph (all that
/// PTX's branches make, apart from `brx.idx`, which `waits_of` refuses with `indirectbr`) they are
/// exactly the loops' back edges.
pub(super) struct RetreatingEdge {
    pub latch: LLVMBasicBlockRef,
    /// Which successor of the latch's terminator.
    pub successor: u32,
    pub header: LLVMBasicBlockRef,
}

/// The retreating edges of `function` that close loops which should run in rounds (see the
/// module documentation).
///
/// # Safety
///
/// `function` is a lowered body (see the module documentation) whose blocks all end in
/// terminators.
pub(super) unsafe fn round_loops(function: LLVMValueRef) -> Vec<RetreatingEdge> {
    // SAFETY: per the contract.
    unsafe {
        let edges = retreating_edges(function);
        if edges.is_empty() {
            return edges;
        }
        let predecessors = predecessors(function);
        let loops: Vec<HashSet<LLVMBasicBlockRef>> =
            edges.iter().map(|edge| natural_loop(edge, &predecessors)).collect();
        let in_loops: HashSet<LLVMBasicBlockRef> = loops.iter().flatten().copied().collect();
        let uniform = UniformRegisters::of(function, &in_loops);
        let chosen: Vec<bool> = edges
            .iter()
            .zip(&loops)
            .map(|(edge, blocks)| touches_memory_plainly(blocks) && uniform.trip_is_uniform(edge.latch, blocks))
            .collect();
        // A loop inside one that does not run in rounds would diverge with it.
        let enclosed_by_other = |index: usize| {
            loops.iter().enumerate().any(|(other, blocks)| {
                other != index
                    && !chosen[other]
                    && blocks.contains(&edges[index].header)
                    && blocks.len() > loops[index].len()
            })
        };
        let keep: Vec<bool> = (0..edges.len()).map(|index| chosen[index] && !enclosed_by_other(index)).collect();
        edges.into_iter().zip(keep).filter_map(|(edge, keep)| keep.then_some(edge)).collect()
    }
}

/// The retreating edges of `function`, in depth-first order.
///
/// # Safety
///
/// `function` is a defined function whose blocks all end in terminators.
unsafe fn retreating_edges(function: LLVMValueRef) -> Vec<RetreatingEdge> {
    let mut edges = Vec::new();
    let Some(&entry) = blocks(function).first() else { return edges };
    let mut visited = HashSet::from([entry]);
    let mut on_path = HashSet::from([entry]);
    // Each frame: a block and the index of its next successor to look at.
    let mut path: Vec<(LLVMBasicBlockRef, u32)> = vec![(entry, 0)];
    while let Some(&mut (block, ref mut next)) = path.last_mut() {
        // SAFETY: per the contract, `block` has a terminator.
        let terminator = unsafe { LLVMGetBasicBlockTerminator(block) };
        // SAFETY: as above.
        let successors = unsafe { LLVMGetNumSuccessors(terminator) };
        if *next == successors {
            on_path.remove(&block);
            path.pop();
            continue;
        }
        let index = *next;
        *next += 1;
        // SAFETY: `index` is below the terminator's successor count.
        let successor = unsafe { LLVMGetSuccessor(terminator, index) };
        if on_path.contains(&successor) {
            edges.push(RetreatingEdge { latch: block, successor: index, header: successor });
        } else if visited.insert(successor) {
            on_path.insert(successor);
            path.push((successor, 0));
        }
    }
    edges
}

/// Each block's predecessors.
///
/// # Safety
///
/// As for [`retreating_edges`].
unsafe fn predecessors(function: LLVMValueRef) -> HashMap<LLVMBasicBlockRef, Vec<LLVMBasicBlockRef>> {
    let mut result: HashMap<LLVMBasicBlockRef, Vec<LLVMBasicBlockRef>> = HashMap::new();
    for block in blocks(function) {
        // SAFETY: per the contract.
        unsafe {
            let terminator = LLVMGetBasicBlockTerminator(block);
            for index in 0..LLVMGetNumSuccessors(terminator) {
                result.entry(LLVMGetSuccessor(terminator, index)).or_default().push(block);
            }
        }
    }
    result
}

/// The blocks of the loop that `edge` closes: its header and every block that reaches the
/// latch without passing through the header.
fn natural_loop(
    edge: &RetreatingEdge,
    predecessors: &HashMap<LLVMBasicBlockRef, Vec<LLVMBasicBlockRef>>,
) -> HashSet<LLVMBasicBlockRef> {
    let mut blocks = HashSet::from([edge.header]);
    let mut work = vec![edge.latch];
    while let Some(block) = work.pop() {
        if blocks.insert(block) {
            work.extend(predecessors.get(&block).into_iter().flatten().copied());
        }
    }
    blocks
}

/// Whether a pointer is (an offset into) one of the body's allocas.
///
/// # Safety
///
/// `pointer` is a value.
unsafe fn is_register(pointer: LLVMValueRef) -> bool {
    // SAFETY: per the contract; a GEP's operand 0 is its base.
    unsafe {
        let mut pointer = pointer;
        while !LLVMIsAGetElementPtrInst(pointer).is_null() {
            pointer = LLVMGetOperand(pointer, 0);
        }
        !LLVMIsAAllocaInst(pointer).is_null()
    }
}

/// Whether the loop's blocks load or store memory other than registers, and update none
/// atomically.
///
/// # Safety
///
/// The blocks belong to a defined function.
unsafe fn touches_memory_plainly(blocks: &HashSet<LLVMBasicBlockRef>) -> bool {
    let mut touches = false;
    for &block in blocks {
        for instruction in instructions(block) {
            // SAFETY: `instruction` is an instruction; the operand indices are the pointers.
            unsafe {
                let pointer = match LLVMGetInstructionOpcode(instruction) {
                    LLVMOpcode::LLVMLoad => LLVMGetOperand(instruction, 0),
                    LLVMOpcode::LLVMStore => LLVMGetOperand(instruction, 1),
                    LLVMOpcode::LLVMAtomicRMW | LLVMOpcode::LLVMAtomicCmpXchg | LLVMOpcode::LLVMFence => return false,
                    _ => continue,
                };
                touches |= !is_register(pointer);
            }
        }
    }
    touches
}

/// The body's block-uniform registers (see the module documentation).
struct UniformRegisters {
    function: LLVMValueRef,
    context: LLVMValueRef,
    registers: HashSet<LLVMValueRef>,
    /// Every register's stores.
    stores: HashMap<LLVMValueRef, Vec<LLVMValueRef>>,
}

impl UniformRegisters {
    /// Registers that only loads and stores use, stored only outside loops and only with
    /// block-uniform values: the greatest such set, from all registers down.
    ///
    /// # Safety
    ///
    /// As for [`round_loops`]; `in_loops` holds the blocks of every loop.
    unsafe fn of(function: LLVMValueRef, in_loops: &HashSet<LLVMBasicBlockRef>) -> UniformRegisters {
        // SAFETY: per the contract.
        unsafe {
            let context = LLVMGetParam(function, 0);
            let mut stores: HashMap<LLVMValueRef, Vec<LLVMValueRef>> = HashMap::new();
            let mut registers = HashSet::new();
            let mut escaped = HashSet::new();
            for block in blocks(function) {
                for instruction in instructions(block) {
                    if !LLVMIsAAllocaInst(instruction).is_null() {
                        registers.insert(instruction);
                    }
                    for index in 0..LLVMGetNumOperands(instruction).max(0) as u32 {
                        let operand = LLVMGetOperand(instruction, index);
                        if LLVMIsAAllocaInst(operand).is_null() {
                            continue;
                        }
                        match LLVMGetInstructionOpcode(instruction) {
                            LLVMOpcode::LLVMLoad => {}
                            LLVMOpcode::LLVMStore if index == 1 => {
                                stores.entry(operand).or_default().push(instruction);
                                if in_loops.contains(&block) {
                                    escaped.insert(operand);
                                }
                            }
                            _ => {
                                escaped.insert(operand);
                            }
                        }
                    }
                }
            }
            // One store each: a register written on two paths may differ between threads that
            // took different ones, even where each path writes a uniform value.
            registers.retain(|register| {
                !escaped.contains(register) && stores.get(register).is_some_and(|stores| stores.len() == 1)
            });
            let mut uniform = UniformRegisters { function, context, registers, stores };
            loop {
                let varying: Vec<LLVMValueRef> = uniform
                    .registers
                    .iter()
                    .copied()
                    .filter(|register| {
                        uniform
                            .stores
                            .get(register)
                            .into_iter()
                            .flatten()
                            .any(|&store| !uniform.is_uniform(LLVMGetOperand(store, 0), UNIFORMITY_DEPTH))
                    })
                    .collect();
                if varying.is_empty() {
                    return uniform;
                }
                for register in varying {
                    uniform.registers.remove(&register);
                }
            }
        }
    }

    /// Whether `value` is the same for every thread of the block, as far as `depth` more steps
    /// can tell.
    ///
    /// # Safety
    ///
    /// `value` is a value of the body.
    unsafe fn is_uniform(&self, value: LLVMValueRef, depth: u32) -> bool {
        // SAFETY: per the contract; operands are values of the body too.
        unsafe {
            if !LLVMIsAConstant(value).is_null() {
                return true;
            }
            if !LLVMIsAArgument(value).is_null() {
                // Not `%tid.x`, `%tid.y` or `%tid.z` (hidden parameters 1 to 3).
                return (1..=3).all(|index| LLVMGetParam(self.function, index) != value);
            }
            if depth == 0 || LLVMIsAInstruction(value).is_null() {
                return false;
            }
            let operands = || (0..LLVMGetNumOperands(value).max(0) as u32).map(|index| LLVMGetOperand(value, index));
            match LLVMGetInstructionOpcode(value) {
                LLVMOpcode::LLVMLoad => {
                    let mut pointer = LLVMGetOperand(value, 0);
                    if self.registers.contains(&pointer) {
                        return true;
                    }
                    // A field of the block's context (`%ctaid`, `%nctaid`, `%ntid`).
                    while !LLVMIsAGetElementPtrInst(pointer).is_null() {
                        pointer = LLVMGetOperand(pointer, 0);
                    }
                    pointer == self.context
                }
                LLVMOpcode::LLVMAdd
                | LLVMOpcode::LLVMSub
                | LLVMOpcode::LLVMMul
                | LLVMOpcode::LLVMShl
                | LLVMOpcode::LLVMLShr
                | LLVMOpcode::LLVMAShr
                | LLVMOpcode::LLVMAnd
                | LLVMOpcode::LLVMOr
                | LLVMOpcode::LLVMXor
                | LLVMOpcode::LLVMUDiv
                | LLVMOpcode::LLVMSDiv
                | LLVMOpcode::LLVMURem
                | LLVMOpcode::LLVMSRem
                | LLVMOpcode::LLVMZExt
                | LLVMOpcode::LLVMSExt
                | LLVMOpcode::LLVMTrunc
                | LLVMOpcode::LLVMBitCast
                | LLVMOpcode::LLVMICmp
                | LLVMOpcode::LLVMSelect => operands().all(|operand| self.is_uniform(operand, depth - 1)),
                _ => false,
            }
        }
    }

    /// Whether `value` depends on the launch's shape: reads `%ntid`, `%nctaid` or `%ctaid` from
    /// the context, directly or through registers.
    ///
    /// # Safety
    ///
    /// `value` is a value of the body.
    unsafe fn reads_shape(&self, value: LLVMValueRef, depth: u32) -> bool {
        // SAFETY: per the contract; operands are values of the body too.
        unsafe {
            if depth == 0 || LLVMIsAInstruction(value).is_null() {
                return false;
            }
            if LLVMGetInstructionOpcode(value) == LLVMOpcode::LLVMLoad {
                let mut pointer = LLVMGetOperand(value, 0);
                if let Some(&[store]) = self.stores.get(&pointer).map(Vec::as_slice) {
                    return self.reads_shape(LLVMGetOperand(store, 0), depth - 1);
                }
                while !LLVMIsAGetElementPtrInst(pointer).is_null() {
                    pointer = LLVMGetOperand(pointer, 0);
                }
                return pointer == self.context;
            }
            (0..LLVMGetNumOperands(value).max(0) as u32)
                .any(|index| self.reads_shape(LLVMGetOperand(value, index), depth - 1))
        }
    }

    /// Whether the latch of the loop of `blocks` leaves or repeats on a comparison of one of the
    /// loop's induction variables with a block-uniform bound.
    ///
    /// # Safety
    ///
    /// `latch` is a block of `blocks`, which belong to the body.
    unsafe fn trip_is_uniform(&self, latch: LLVMBasicBlockRef, blocks: &HashSet<LLVMBasicBlockRef>) -> bool {
        // SAFETY: per the contract.
        unsafe {
            let terminator = LLVMGetBasicBlockTerminator(latch);
            if LLVMGetInstructionOpcode(terminator) != LLVMOpcode::LLVMBr || LLVMGetNumOperands(terminator) != 3 {
                return false;
            }
            let mut condition = LLVMGetOperand(terminator, 0);
            // Through a predicate register, to the value last stored to it in the latch.
            for _ in 0..4 {
                condition = strip_negation(condition);
                if LLVMIsAInstruction(condition).is_null()
                    || LLVMGetInstructionOpcode(condition) != LLVMOpcode::LLVMLoad
                {
                    break;
                }
                let register = LLVMGetOperand(condition, 0);
                let Some(stored) = last_store_before(latch, register, condition) else { return false };
                condition = stored;
            }
            if LLVMIsAInstruction(condition).is_null() || LLVMGetInstructionOpcode(condition) != LLVMOpcode::LLVMICmp {
                return false;
            }
            let (left, right) = (strip_casts(LLVMGetOperand(condition, 0)), strip_casts(LLVMGetOperand(condition, 1)));
            (self.is_induction_variable(left, blocks) && self.is_uniform(right, UNIFORMITY_DEPTH))
                || (self.is_induction_variable(right, blocks) && self.is_uniform(left, UNIFORMITY_DEPTH))
        }
    }

    /// Whether `value` loads a register that the loop of `blocks` stores to, and only ever as
    /// itself plus or minus a block-uniform step that depends on the launch's shape.
    ///
    /// # Safety
    ///
    /// `value` is a value of the body.
    unsafe fn is_induction_variable(&self, value: LLVMValueRef, blocks: &HashSet<LLVMBasicBlockRef>) -> bool {
        // SAFETY: per the contract.
        unsafe {
            if LLVMIsAInstruction(value).is_null() || LLVMGetInstructionOpcode(value) != LLVMOpcode::LLVMLoad {
                return false;
            }
            let register = LLVMGetOperand(value, 0);
            if LLVMIsAAllocaInst(register).is_null() {
                return false;
            }
            let in_loop: Vec<LLVMValueRef> = self
                .stores
                .get(&register)
                .into_iter()
                .flatten()
                .copied()
                .filter(|&store| blocks.contains(&LLVMGetInstructionParent(store)))
                .collect();
            !in_loop.is_empty()
                && in_loop.iter().all(|&store| {
                    let stored = LLVMGetOperand(store, 0);
                    if LLVMIsAInstruction(stored).is_null() {
                        return false;
                    }
                    let opcode = LLVMGetInstructionOpcode(stored);
                    if opcode != LLVMOpcode::LLVMAdd && opcode != LLVMOpcode::LLVMSub {
                        return false;
                    }
                    let (left, right) = (LLVMGetOperand(stored, 0), LLVMGetOperand(stored, 1));
                    let reads_itself = |operand: LLVMValueRef| {
                        !LLVMIsAInstruction(operand).is_null()
                            && LLVMGetInstructionOpcode(operand) == LLVMOpcode::LLVMLoad
                            && LLVMGetOperand(operand, 0) == register
                    };
                    let is_step = |step: LLVMValueRef| {
                        self.is_uniform(step, UNIFORMITY_DEPTH) && self.reads_shape(step, UNIFORMITY_DEPTH)
                    };
                    (reads_itself(left) && is_step(right))
                        || (opcode == LLVMOpcode::LLVMAdd && reads_itself(right) && is_step(left))
                })
        }
    }
}

/// `value` without a negation (`xor` with true), as `@!%p` guards and branch inversions write.
///
/// # Safety
///
/// `value` is a value.
unsafe fn strip_negation(value: LLVMValueRef) -> LLVMValueRef {
    // SAFETY: per the contract.
    unsafe {
        if !LLVMIsAInstruction(value).is_null() && LLVMGetInstructionOpcode(value) == LLVMOpcode::LLVMXor {
            let constant = LLVMGetOperand(value, 1);
            if !LLVMIsAConstantInt(constant).is_null() {
                return LLVMGetOperand(value, 0);
            }
        }
        value
    }
}

/// `value` without integer extensions and truncations.
///
/// # Safety
///
/// `value` is a value.
unsafe fn strip_casts(value: LLVMValueRef) -> LLVMValueRef {
    // SAFETY: per the contract.
    unsafe {
        let mut value = value;
        while !LLVMIsAInstruction(value).is_null()
            && matches!(
                LLVMGetInstructionOpcode(value),
                LLVMOpcode::LLVMZExt | LLVMOpcode::LLVMSExt | LLVMOpcode::LLVMTrunc
            )
        {
            value = LLVMGetOperand(value, 0);
        }
        value
    }
}

/// The value of the last store to `register` in `block` before `before`, if there is one.
///
/// # Safety
///
/// `before` is an instruction of `block`.
unsafe fn last_store_before(
    block: LLVMBasicBlockRef,
    register: LLVMValueRef,
    before: LLVMValueRef,
) -> Option<LLVMValueRef> {
    let mut stored = None;
    for instruction in instructions(block) {
        if instruction == before {
            return stored;
        }
        // SAFETY: per the contract.
        unsafe {
            if LLVMGetInstructionOpcode(instruction) == LLVMOpcode::LLVMStore
                && LLVMGetOperand(instruction, 1) == register
            {
                stored = Some(LLVMGetOperand(instruction, 0));
            }
        }
    }
    None
}
