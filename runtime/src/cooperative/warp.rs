//! What each warp collective computes once its lanes have met (ISA 7.8 sections 9.7.8.6 and
//! 9.7.12): pure functions over the lanes' deposited operands, so that they are tested apart
//! from the scheduler.

use crate::abi::warp_collective as kind;

/// One lane's operands at a collective.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deposit {
    /// The lane's index in its warp (0 to 31).
    pub lane: u32,
    pub a: u64,
    pub b: u32,
    pub c: u32,
}

/// The result of one lane: the value and the predicate, packed as the runtime function returns
/// them (value in bits 0..32, predicate in bit 32).
pub fn pack(value: u32, predicate: bool) -> u64 {
    u64::from(value) | (u64::from(predicate) << 32)
}

/// Every participating lane's result: lane `group[i]`'s to `results[i]`. `group` holds the
/// lanes that take part, sorted by lane; their mask is the set of those lanes. The scheduler
/// calls this once per collective per warp, so it allocates nothing and stays linear in the
/// group.
pub fn resolve_into(collective: u32, group: &[Deposit], results: &mut [u64]) {
    let members: u32 = group.iter().fold(0, |mask, deposit| mask | (1 << deposit.lane));
    let mut values = [0u32; 32];
    for deposit in group {
        values[deposit.lane as usize & 31] = deposit.a as u32;
    }
    let value_of = |lane: u32| (members & (1 << lane) != 0).then(|| values[lane as usize]);
    let uniform = |results: &mut [u64], value: u64| results.iter_mut().for_each(|result| *result = value);
    match collective {
        kind::SHUFFLE_UP | kind::SHUFFLE_DOWN | kind::SHUFFLE_BUTTERFLY | kind::SHUFFLE_INDEX => {
            for (deposit, result) in group.iter().zip(results.iter_mut()) {
                let (source, in_range) = shuffle_source(collective, deposit.lane, deposit.b, deposit.c);
                // A source lane that does not take part gives an unpredictable value in PTX;
                // ptxr gives the lane's own value, as for an out-of-range source.
                let value = if in_range { value_of(source).unwrap_or(deposit.a as u32) } else { deposit.a as u32 };
                *result = pack(value, in_range);
            }
        }
        kind::VOTE_ALL | kind::VOTE_ANY | kind::VOTE_UNIFORM | kind::VOTE_BALLOT => {
            let ballot: u32 =
                group.iter().filter(|deposit| deposit.a != 0).fold(0, |mask, deposit| mask | (1 << deposit.lane));
            uniform(results, pack(vote(collective, ballot, members), false));
        }
        kind::MATCH_ANY => {
            for (deposit, result) in group.iter().zip(results.iter_mut()) {
                let same =
                    group.iter().filter(|other| other.a == deposit.a).fold(0, |mask, other| mask | (1 << other.lane));
                *result = pack(same, false);
            }
        }
        kind::MATCH_ALL => {
            let all_equal = group.iter().all(|deposit| deposit.a == group[0].a);
            uniform(results, if all_equal { pack(members, true) } else { pack(0, false) });
        }
        kind::REDUX_ADD..=kind::REDUX_XOR => {
            let values = group.iter().map(|deposit| deposit.a as u32);
            let result = match collective {
                kind::REDUX_ADD => values.fold(0u32, u32::wrapping_add),
                kind::REDUX_SIGNED_MINIMUM => values.map(|value| value as i32).min().unwrap_or(0) as u32,
                kind::REDUX_UNSIGNED_MINIMUM => values.min().unwrap_or(0),
                kind::REDUX_SIGNED_MAXIMUM => values.map(|value| value as i32).max().unwrap_or(0) as u32,
                kind::REDUX_UNSIGNED_MAXIMUM => values.max().unwrap_or(0),
                kind::REDUX_AND => values.fold(u32::MAX, |all, value| all & value),
                kind::REDUX_OR => values.fold(0, |all, value| all | value),
                _ => values.fold(0, |all, value| all ^ value),
            };
            uniform(results, pack(result, false));
        }
        kind::ACTIVE_MASK => uniform(results, pack(members, false)),
        _ => uniform(results, 0),
    }
}

/// The result of the vote `collective` (`vote.all`, `.any`, `.uni` or `.ballot`) whose
/// `members` voted `ballot` (ISA 7.8 section 9.7.12).
pub(super) fn vote(collective: u32, ballot: u32, members: u32) -> u32 {
    match collective {
        kind::VOTE_ALL => u32::from(ballot == members),
        kind::VOTE_ANY => u32::from(ballot != 0),
        kind::VOTE_UNIFORM => u32::from(ballot == 0 || ballot == members),
        _ => ballot,
    }
}

/// The lane that `shfl` reads for `lane`, and whether it was in range (ISA 7.8 section 9.7.8.6).
pub(super) fn shuffle_source(collective: u32, lane: u32, b: u32, c: u32) -> (u32, bool) {
    let lane = lane as i32;
    let offset = (b & 0x1f) as i32;
    let clamp = (c & 0x1f) as i32;
    let segment_mask = ((c >> 8) & 0x1f) as i32;
    let max_lane = (lane & segment_mask) | (clamp & !segment_mask);
    let min_lane = lane & segment_mask;
    let (source, in_range) = match collective {
        kind::SHUFFLE_UP => {
            let source = lane - offset;
            (source, source >= max_lane)
        }
        kind::SHUFFLE_DOWN => {
            let source = lane + offset;
            (source, source <= max_lane)
        }
        kind::SHUFFLE_BUTTERFLY => {
            let source = lane ^ offset;
            (source, source <= max_lane)
        }
        _ => {
            let source = min_lane | (offset & !segment_mask);
            (source, source <= max_lane)
        }
    };
    if in_range {
        (source as u32, true)
    } else {
        (lane as u32, false)
    }
}

#[cfg(test)]
mod tests {
    use super::{pack, resolve_into, Deposit};
    use crate::abi::warp_collective as kind;

    fn resolve(collective: u32, group: &[Deposit]) -> Vec<u64> {
        let mut results = vec![0; group.len()];
        resolve_into(collective, group, &mut results);
        results
    }

    fn full_warp(value: impl Fn(u32) -> u64, b: u32, c: u32) -> Vec<Deposit> {
        (0..32).map(|lane| Deposit { lane, a: value(lane), b, c }).collect()
    }

    #[test]
    fn shuffle_up_reads_lower_lanes_and_keeps_its_own_value_below_the_clamp() {
        // __shfl_up_sync(full, lane, 3): c = 0 (width 32).
        let results = resolve(kind::SHUFFLE_UP, &full_warp(u64::from, 3, 0));
        for (lane, result) in results.iter().enumerate() {
            let lane = lane as u32;
            let expected = if lane >= 3 { pack(lane - 3, true) } else { pack(lane, false) };
            assert_eq!(*result, expected, "lane {lane}");
        }
    }

    #[test]
    fn shuffle_down_and_butterfly_within_segments_of_eight() {
        // width 8: c = ((32 - 8) << 8) | 0x1f for down/bfly/idx.
        let c = (24 << 8) | 0x1f;
        let down = resolve(kind::SHUFFLE_DOWN, &full_warp(u64::from, 2, c));
        for lane in 0..32u32 {
            let in_segment = lane % 8 + 2 < 8;
            let expected = if in_segment { pack(lane + 2, true) } else { pack(lane, false) };
            assert_eq!(down[lane as usize], expected, "down lane {lane}");
        }
        let butterfly = resolve(kind::SHUFFLE_BUTTERFLY, &full_warp(u64::from, 5, c));
        for lane in 0..32u32 {
            assert_eq!(butterfly[lane as usize], pack(lane ^ 5, true), "bfly lane {lane}");
        }
        let index = resolve(kind::SHUFFLE_INDEX, &full_warp(|lane| u64::from(lane) * 10, 3, c));
        for lane in 0..32u32 {
            assert_eq!(index[lane as usize], pack((lane / 8 * 8 + 3) * 10, true), "idx lane {lane}");
        }
    }

    #[test]
    fn votes_ballots_and_matches() {
        let group: Vec<Deposit> =
            (0..8).map(|lane| Deposit { lane, a: u64::from(lane % 3 == 0), b: 0, c: 0 }).collect();
        assert_eq!(resolve(kind::VOTE_BALLOT, &group)[0], pack(0b0100_1001, false));
        assert_eq!(resolve(kind::VOTE_ANY, &group)[0], pack(1, false));
        assert_eq!(resolve(kind::VOTE_ALL, &group)[0], pack(0, false));
        assert_eq!(resolve(kind::VOTE_UNIFORM, &group)[0], pack(0, false));
        let matches = resolve(kind::MATCH_ANY, &group);
        assert_eq!(matches[3], pack(0b0100_1001, false));
        assert_eq!(matches[1], pack(0b1011_0110, false));
        assert_eq!(resolve(kind::MATCH_ALL, &group)[0], pack(0, false));
        let same: Vec<Deposit> = (4..6).map(|lane| Deposit { lane, a: 7, b: 0, c: 0 }).collect();
        assert_eq!(resolve(kind::MATCH_ALL, &same), vec![pack(0b11_0000, true); 2]);
    }

    #[test]
    fn reductions_over_the_group() {
        let group: Vec<Deposit> = [5u32, 0xffff_fffe, 7]
            .iter()
            .enumerate()
            .map(|(lane, &value)| Deposit { lane: lane as u32, a: u64::from(value), b: 0, c: 0 })
            .collect();
        assert_eq!(resolve(kind::REDUX_ADD, &group)[0], pack(10, false));
        assert_eq!(resolve(kind::REDUX_SIGNED_MINIMUM, &group)[0], pack(0xffff_fffe, false));
        assert_eq!(resolve(kind::REDUX_UNSIGNED_MINIMUM, &group)[0], pack(5, false));
        assert_eq!(resolve(kind::REDUX_SIGNED_MAXIMUM, &group)[0], pack(7, false));
        assert_eq!(resolve(kind::REDUX_UNSIGNED_MAXIMUM, &group)[0], pack(0xffff_fffe, false));
        assert_eq!(resolve(kind::REDUX_AND, &group)[0], pack(5 & 0xffff_fffe & 7, false));
        assert_eq!(resolve(kind::REDUX_XOR, &group)[0], pack(5 ^ 0xffff_fffe ^ 7, false));
        assert_eq!(resolve(kind::ACTIVE_MASK, &group)[0], pack(0b111, false));
    }
}
