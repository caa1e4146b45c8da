//! One file per instruction family; `lower` is the exhaustive dispatch over `Instruction`.

mod bits;
mod bulk_copy;
mod call;
mod carry;
mod cluster;
mod comparison;
pub(crate) mod constant_string;
mod control;
mod conversion;
mod copy_async;
mod directed;
mod float;
mod float_function;
mod float_minimum;
mod float_property;
mod half;
mod hint;
mod integer;
mod integer_lanes;
mod matrix;
mod matrix_by_shuffles;
mod mbarrier;
mod memory;
mod native_warp_group_matrix;
mod packed_single;
mod shared_memory_swizzle;
mod sparse_matrix;
pub(crate) mod stack;
mod support;
mod synchronization;
mod tensor_copy;
mod tensor_map;
mod texture;
mod tf32;
mod vector;
mod vector_atomic;
mod video;
mod warp_group_matrix;
mod warp_matrix;
mod word_atomic;

pub use synchronization::is_cooperative;

use ptxr_frontend::ir::{BitFieldInsertInstruction, GuardedInstruction, Instruction, ShuffleInstruction};

use crate::error::{LoweringError, LoweringResult};
use crate::function::FunctionLowering;

pub fn lower(lowering: &mut FunctionLowering<'_, '_>, guarded: &GuardedInstruction) -> LoweringResult<()> {
    let span = guarded.span;
    match &guarded.instruction {
        Instruction::Move { ty, destination, source } => memory::mov(lowering, *ty, destination, source),
        Instruction::Load { state_space, ty, volatile, ordered, destination, address } => {
            let access = memory::Access { volatile: *volatile, ordered: *ordered };
            memory::load(lowering, *state_space, *ty, access, destination, address)
        }
        Instruction::Store { state_space, ty, volatile, ordered, address, source } => {
            let access = memory::Access { volatile: *volatile, ordered: *ordered };
            memory::store(lowering, *state_space, *ty, access, address, source)
        }
        Instruction::LoadVector { state_space, ty, volatile, ordered, destinations, address } => {
            let access = memory::Access { volatile: *volatile, ordered: *ordered };
            vector::load_vector(lowering, *state_space, *ty, access, destinations, address)
        }
        Instruction::StoreVector { state_space, ty, volatile, ordered, address, sources } => {
            let access = memory::Access { volatile: *volatile, ordered: *ordered };
            vector::store_vector(lowering, *state_space, *ty, access, address, sources)
        }
        Instruction::MoveVector { ty, destinations, sources } => {
            vector::move_vector(lowering, *ty, destinations, sources)
        }
        Instruction::Pack { ty, destination, sources } => vector::pack(lowering, *ty, destination, sources),
        Instruction::Unpack { ty, destinations, source } => vector::unpack(lowering, *ty, destinations, source),
        Instruction::CopyAsync { destination, source, copy_size, source_size, ignore_source } => copy_async::copy(
            lowering,
            destination,
            source,
            *copy_size,
            source_size.as_deref(),
            ignore_source.as_deref(),
        ),
        Instruction::CopyAsyncGroup => Ok(()),
        Instruction::BulkCopy { direction, destination, source, size, mbarrier } => {
            bulk_copy::copy(lowering, guarded, *direction, destination, source, size, mbarrier.as_deref())
        }
        Instruction::BulkTensorCopy { direction, dimensions, shared, tensor_map, coordinates, mbarrier } => {
            tensor_copy::copy(
                lowering,
                guarded,
                *direction,
                *dimensions,
                shared,
                tensor_map,
                coordinates,
                mbarrier.as_deref(),
            )
        }
        Instruction::BulkReduce { direction, operation, ty, destination, source, size, mbarrier } => bulk_copy::reduce(
            lowering,
            guarded,
            *direction,
            *operation,
            *ty,
            destination,
            source,
            size,
            mbarrier.as_deref(),
        ),
        Instruction::BulkPrefetch { address, size } => bulk_copy::prefetch(lowering, guarded, address, size),
        Instruction::BulkTensorPrefetch { dimensions, tensor_map, coordinates } => {
            tensor_copy::prefetch(lowering, guarded, *dimensions, tensor_map, coordinates)
        }
        Instruction::BulkCopyCommit => bulk_copy::group(lowering, guarded, None),
        Instruction::BulkCopyWait { pending, read } => bulk_copy::group(lowering, guarded, Some((*pending, *read))),
        Instruction::TensorMapReplace { field, state_space, address, ordinal, value } => {
            tensor_map::replace(lowering, guarded, *field, *state_space, address, *ordinal, value)
        }
        Instruction::TensorMapCopyFenceProxy { scope, destination, source } => {
            tensor_map::copy_fence_proxy(lowering, guarded, *scope, destination, source)
        }
        Instruction::TensorMapFence { scope, acquire } => {
            tensor_map::fence(lowering, guarded, *scope, acquire.as_ref())
        }
        Instruction::CreatePolicy { destination } => memory::create_policy(lowering, destination),
        Instruction::Prefetch { state_space, address } => memory::prefetch(lowering, *state_space, address),
        Instruction::IsSpace { state_space, shared_cluster, destination, address, address_type } => {
            memory::is_space(lowering, *state_space, *shared_cluster, destination, address, *address_type)
        }
        Instruction::MapClusterAddress { shared_cluster, ty, destination, address, rank } => {
            cluster::map_address(lowering, *shared_cluster, *ty, destination, address, rank)
        }
        Instruction::ClusterRank { shared_cluster, ty, destination, address } => {
            cluster::cta_rank(lowering, *shared_cluster, *ty, destination, address)
        }
        Instruction::ConvertAddress { direction, state_space, shared_cluster, size_bits, destination, source } => {
            memory::convert_address(
                lowering,
                *direction,
                *state_space,
                *shared_cluster,
                *size_bits,
                destination,
                source,
            )
        }
        Instruction::IntegerBinary { operation, ty, saturate, destination, a, b } => {
            integer::binary(lowering, *operation, *ty, *saturate, destination, a, b)
        }
        Instruction::IntegerLanes { operation, lanes, relu, destination, a, b } => {
            integer_lanes::integer_lanes(lowering, *operation, *lanes, *relu, destination, a, b)
        }
        Instruction::IntegerMultiplyAdd { mode, ty, saturate, destination, a, b, c } => {
            integer::multiply_add(lowering, *mode, *ty, *saturate, destination, a, b, c)
        }
        Instruction::FloatBinary { operation, ty, rounding, flush_subnormals, saturate, destination, a, b, c } => {
            float::binary(
                lowering,
                guarded,
                *operation,
                *ty,
                *rounding,
                *flush_subnormals,
                *saturate,
                destination,
                [a, b],
                c.as_ref(),
            )
        }
        Instruction::FloatUnary { operation, ty, precision, flush_subnormals, destination, a } => {
            float_function::unary(lowering, guarded, *operation, *ty, *precision, *flush_subnormals, destination, a)
        }
        Instruction::PackedSingle { operation, rounding, flush_subnormals, destination, a, b, c } => {
            packed_single::arithmetic(
                lowering,
                guarded,
                *operation,
                *rounding,
                *flush_subnormals,
                destination,
                [a, b],
                c.as_ref(),
            )
        }
        Instruction::CopySign { ty, destination, a, b } => {
            float_function::copysign(lowering, guarded, *ty, destination, a, b)
        }
        Instruction::FusedMultiplyAdd { ty, rounding, flush_subnormals, saturate, destination, a, b, c } => {
            float::fused_multiply_add(
                lowering,
                guarded,
                *ty,
                *rounding,
                *flush_subnormals,
                *saturate,
                destination,
                [a, b, c],
            )
        }
        Instruction::Logic { operation, ty, destination, a, b } => {
            integer::logic(lowering, *operation, *ty, destination, a, b)
        }
        Instruction::Unary { operation, ty, flush_subnormals, destination, a } => {
            integer::unary(lowering, *operation, *ty, *flush_subnormals, destination, a)
        }
        Instruction::Shift { operation, ty, destination, a, b } => {
            integer::shift(lowering, *operation, *ty, destination, a, b)
        }
        Instruction::CarryArithmetic { operation, ty, carry_in, carry_out, destination, a, b } => {
            carry::arithmetic(lowering, *operation, *ty, *carry_in, *carry_out, destination, a, b)
        }
        Instruction::CarryMultiplyAdd { high, ty, carry_in, carry_out, destination, a, b, c } => {
            carry::multiply_add(lowering, *high, *ty, *carry_in, *carry_out, destination, a, b, c)
        }
        Instruction::BitFieldExtract { ty, destination, source, position, length } => {
            bits::bit_field_extract(lowering, *ty, destination, source, position, length)
        }
        Instruction::BitFieldInsert(insert) => {
            let BitFieldInsertInstruction { ty, destination, field, base, position, length } = &**insert;
            bits::bit_field_insert(lowering, *ty, destination, field, base, position, length)
        }
        Instruction::FindMostSignificantBit { ty, shift_amount, destination, source } => {
            bits::find_most_significant_bit(lowering, *ty, *shift_amount, destination, source, span)
        }
        Instruction::FindNthSetBit { destination, mask, base, offset } => {
            bits::find_nth_set_bit(lowering, destination, mask, base, offset, span)
        }
        Instruction::BitMask { wrap, destination, position, width } => {
            bits::bit_mask(lowering, *wrap, destination, position, width)
        }
        Instruction::SignOrZeroExtend { ty, wrap, destination, source, width } => {
            bits::sign_or_zero_extend(lowering, *ty, *wrap, destination, source, width)
        }
        Instruction::Permute { mode, destination, a, b, selector } => {
            bits::permute(lowering, *mode, destination, a, b, selector)
        }
        Instruction::FunnelShift { left, wrap, destination, a, b, amount } => {
            bits::funnel_shift(lowering, *left, *wrap, destination, a, b, amount)
        }
        Instruction::Multiply24 { high, ty, saturate, destination, a, b, addend } => {
            bits::multiply_24(lowering, *high, *ty, *saturate, destination, a, b, addend.as_ref(), span)
        }
        Instruction::SumOfAbsoluteDifferences { ty, destination, a, b, c } => {
            bits::sum_of_absolute_differences(lowering, *ty, destination, a, b, c)
        }
        Instruction::DotProduct { lanes, a_signed, b_signed, destination, a, b, c } => {
            bits::dot_product(lowering, *lanes, *a_signed, *b_signed, destination, a, b, c)
        }
        Instruction::ConvertPack { bits, signed, destination, a, b, c } => {
            bits::convert_pack(lowering, *bits, *signed, destination, a, b, c.as_deref())
        }
        Instruction::Video(instruction) => video::video(lowering, instruction),
        Instruction::VideoSimd(instruction) => video::video_simd(lowering, instruction),
        Instruction::TestProperty { property, ty, destination, source } => {
            float_property::test_property(lowering, *property, *ty, destination, source)
        }
        Instruction::SetPredicate { comparison, ty, flush_subnormals, destination, complement, a, b, combine } => {
            comparison::set_predicate(
                lowering,
                *comparison,
                *ty,
                *flush_subnormals,
                destination,
                complement.as_ref(),
                a,
                b,
                combine.as_deref(),
            )
        }
        Instruction::PackedSetPredicate { comparison, ty, flush_subnormals, low, high, a, b, combine } => {
            half::packed_set_predicate(
                lowering,
                *comparison,
                *ty,
                *flush_subnormals,
                low,
                high.as_ref(),
                a,
                b,
                combine.as_deref(),
            )
        }
        Instruction::Set {
            comparison,
            destination_type,
            source_type,
            flush_subnormals,
            destination,
            a,
            b,
            combine,
        } => half::set(
            lowering,
            *comparison,
            *destination_type,
            *source_type,
            *flush_subnormals,
            destination,
            a,
            b,
            combine.as_deref(),
            span,
        ),
        Instruction::HalfBinary { operation, ty, flush_subnormals, saturation, destination, a, b } => {
            half::binary(lowering, *operation, *ty, *flush_subnormals, *saturation, destination, a, b, span)
        }
        Instruction::HalfFusedMultiplyAdd { ty, rounding, flush_subnormals, saturation, destination, a, b, c } => {
            half::fused_multiply_add(
                lowering,
                *ty,
                *rounding,
                *flush_subnormals,
                *saturation,
                destination,
                [a, b, c],
                span,
            )
        }
        Instruction::ConvertToTf32 { rounding, relu, destination, a } => {
            tf32::convert(lowering, *rounding, *relu, destination, a)
        }
        Instruction::HalfUnary { operation, ty, flush_subnormals, destination, a } => {
            half::unary(lowering, *operation, *ty, *flush_subnormals, destination, a, span)
        }
        Instruction::HalfConvert {
            destination_type,
            source_type,
            rounding,
            flush_subnormals,
            saturation,
            satfinite,
            destination,
            source,
        } => half::convert(
            lowering,
            *destination_type,
            *source_type,
            *rounding,
            *flush_subnormals,
            *saturation,
            *satfinite,
            destination,
            source,
            span,
        ),
        Instruction::PackConvert { format, rounding, relu, satfinite, destination, high, low } => {
            half::pack_convert(lowering, *format, *rounding, *relu, *satfinite, destination, high, low, span)
        }
        Instruction::Float8Convert { format, wide, to_float8, relu, destination, source } => {
            half::float8_convert(lowering, *format, *wide, *to_float8, *relu, destination, source, span)
        }
        Instruction::SelectBySign { ty, condition_type, flush_subnormals, destination, a, b, c } => {
            comparison::select_by_sign(lowering, *ty, *condition_type, *flush_subnormals, destination, a, b, c)
        }
        Instruction::LogicTable { table, destination, a, b, c, predicate } => {
            integer::logic_table(lowering, *table, destination, a, b, c, predicate.as_deref())
        }
        Instruction::Select { ty, destination, a, b, predicate } => {
            comparison::select(lowering, *ty, destination, a, b, predicate)
        }
        Instruction::Convert {
            destination_type,
            source_type,
            rounding,
            flush_subnormals,
            saturate,
            destination,
            source,
        } => conversion::convert(
            lowering,
            guarded,
            *destination_type,
            *source_type,
            *rounding,
            *flush_subnormals,
            *saturate,
            destination,
            source,
        ),
        Instruction::Branch { target } => control::branch(lowering, *target),
        Instruction::BranchIndexed { index, targets } => control::branch_indexed(lowering, index, targets),
        Instruction::Return => lowering.build_return(),
        Instruction::Exit => call::exit(lowering, guarded),
        Instruction::Call { callee, results, arguments } => call::call(lowering, guarded, *callee, results, arguments),
        Instruction::CallIndirect { target, results, arguments } => {
            call::call_indirect(lowering, guarded, target, results, arguments)
        }
        Instruction::Trap => call::trap(lowering, guarded),
        Instruction::Hint(instruction) => hint::hint(lowering, guarded, instruction),
        Instruction::StackAllocate { ty, destination, size, align } => {
            stack::allocate(lowering, guarded, *ty, destination, size, *align)
        }
        Instruction::StackSave { ty, destination } => stack::save(lowering, guarded, *ty, destination),
        Instruction::StackRestore { ty, source } => stack::restore(lowering, guarded, *ty, source),
        Instruction::Sleep { nanoseconds } => call::sleep(lowering, guarded, nanoseconds),
        Instruction::Atomic { operation, ty, state_space, ordering, scope, destination, address, value, swap } => {
            synchronization::atomic(
                lowering,
                guarded,
                *operation,
                *ty,
                *state_space,
                *ordering,
                *scope,
                destination.as_ref(),
                address,
                value,
                swap.as_deref(),
            )
        }
        Instruction::VectorAtomic { operation, ty, state_space, ordering, scope, destinations, address, values } => {
            vector_atomic::vector_atomic(
                lowering,
                guarded,
                *operation,
                *ty,
                *state_space,
                *ordering,
                *scope,
                destinations.as_deref(),
                address,
                values,
            )
        }
        Instruction::Fence { ordering, scope } => synchronization::fence(lowering, guarded, *ordering, *scope),
        Instruction::ProxyFence { proxy } => synchronization::proxy_fence(lowering, guarded, *proxy),
        Instruction::MbarrierInit { .. }
        | Instruction::MbarrierInvalidate { .. }
        | Instruction::MbarrierArrive { .. }
        | Instruction::MbarrierTestWait { .. }
        | Instruction::MbarrierPendingCount { .. }
        | Instruction::MbarrierTransaction { .. }
        | Instruction::CopyAsyncMbarrierArrive { .. } => mbarrier::lower(lowering, guarded, &guarded.instruction),
        Instruction::Barrier { operation, barrier, thread_count, destination, predicate } => synchronization::barrier(
            lowering,
            guarded,
            *operation,
            barrier,
            thread_count.as_ref(),
            destination.as_ref(),
            predicate.as_deref(),
        ),
        Instruction::Shuffle(shuffle) => {
            let ShuffleInstruction { mode, destination, in_range, value, lane, clamp, member_mask } = &**shuffle;
            synchronization::shuffle(
                lowering,
                guarded,
                *mode,
                destination,
                in_range.as_ref(),
                value,
                lane,
                clamp,
                member_mask.as_ref(),
            )
        }
        Instruction::Vote { mode, destination, predicate, negated, member_mask } => {
            synchronization::vote(lowering, guarded, *mode, destination, predicate, *negated, member_mask.as_ref())
        }
        Instruction::Match { all, ty, destination, predicate, value, member_mask } => {
            synchronization::match_(lowering, guarded, *all, *ty, destination, predicate.as_ref(), value, member_mask)
        }
        Instruction::Redux { operation, ty, destination, value, member_mask } => {
            synchronization::redux(lowering, guarded, *operation, *ty, destination, value, member_mask)
        }
        Instruction::ActiveMask { destination } => synchronization::active_mask(lowering, guarded, destination),
        Instruction::WarpSync { member_mask } => synchronization::warp_sync(lowering, guarded, member_mask),
        Instruction::Elect { destination, predicate, member_mask } => {
            synchronization::elect(lowering, guarded, destination.as_ref(), predicate, member_mask)
        }
        Instruction::MatrixMultiplyAccumulate { operation, destinations, a, b, c, sparse } => {
            matrix::multiply_accumulate(lowering, guarded, operation, destinations, a, b, c, sparse.as_deref())
        }
        Instruction::StoreMatrix { matrices, transpose, state_space, address, sources } => {
            matrix_by_shuffles::store_matrix(lowering, guarded, *matrices, *transpose, *state_space, address, sources)
        }
        Instruction::LoadMatrix { matrices, transpose, state_space, destinations, address } => {
            matrix::load_matrix(lowering, guarded, *matrices, *transpose, *state_space, destinations, address)
        }
        Instruction::WarpMatrixLoad { shape, destinations, address, stride } => {
            warp_matrix::load(lowering, guarded, shape, destinations, address, stride.as_ref())
        }
        Instruction::WarpMatrixStore { shape, address, sources, stride } => {
            warp_matrix::store(lowering, guarded, shape, address, sources, stride.as_ref())
        }
        Instruction::WarpMatrixMultiplyAccumulate { operation, destinations, a, b, c } => {
            warp_matrix::multiply_accumulate(lowering, guarded, operation, destinations, a, b, c)
        }
        Instruction::Texture(texture) => texture::lower(lowering, guarded, texture),
        Instruction::WarpGroupMultiplyAccumulate(multiply) => {
            warp_group_matrix::multiply_accumulate(lowering, guarded, multiply)
        }
        Instruction::WarpGroupFence => warp_group_matrix::fence(lowering, guarded),
        Instruction::WarpGroupCommit => warp_group_matrix::commit_or_wait(lowering, guarded, None),
        Instruction::WarpGroupWait { pending } => warp_group_matrix::commit_or_wait(lowering, guarded, Some(*pending)),
        Instruction::Unlowered => {
            Err(LoweringError::unsupported(&format!("`{}`", lowering.spelling(guarded)), lowering.target_name(), span))
        }
    }
}
