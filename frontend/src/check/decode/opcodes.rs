//! Every PTX opcode that ptxr knows by name: ISA 7.8 section 9.7, the ISA 1.x forms, and the
//! instructions that nvcc 13 and Triton 3.9 emit beyond ISA 7.8. A name outside this list is an
//! unknown instruction (a typo); a name inside it that `decode` does not handle yet is accepted
//! and reported as unsupported when lowered.

const OPCODES: &[&str] = &[
    "abs",
    "activemask",
    "add",
    "addc",
    "alloca",
    "and",
    "applypriority",
    "atom",
    "bar",
    "barrier",
    "bfe",
    "bfi",
    "bfind",
    "bmsk",
    "bra",
    "brev",
    "brkpt",
    "brx",
    "call",
    "clusterlaunchcontrol",
    "clz",
    "cnot",
    "copysign",
    "cos",
    "cp",
    "createpolicy",
    "cvt",
    "cvta",
    "discard",
    "div",
    "dp2a",
    "dp4a",
    "elect",
    "ex2",
    "exit",
    "fence",
    "fma",
    "fns",
    "getctarank",
    "griddepcontrol",
    "isspacep",
    "istypep",
    "ld",
    "ldmatrix",
    "ldu",
    "lg2",
    "lop3",
    "mad",
    "mad24",
    "madc",
    "mapa",
    "match",
    "max",
    "mbarrier",
    "membar",
    "min",
    "mma",
    "mov",
    "movmatrix",
    "mul",
    "mul24",
    "multimem",
    "nanosleep",
    "neg",
    "not",
    "or",
    "pmevent",
    "popc",
    "prefetch",
    "prefetchu",
    "prmt",
    "rcp",
    "red",
    "redux",
    "rem",
    "ret",
    "rsqrt",
    "sad",
    "selp",
    "set",
    "setmaxnreg",
    "setp",
    "shf",
    "shfl",
    "shl",
    "shr",
    "sin",
    "slct",
    "sqrt",
    "st",
    "stackrestore",
    "stacksave",
    "stmatrix",
    "sub",
    "subc",
    "suld",
    "suq",
    "sured",
    "sust",
    "szext",
    "tanh",
    "tcgen05",
    "tensormap",
    "testp",
    "tex",
    "tld4",
    "trap",
    "txq",
    "vabsdiff",
    "vabsdiff2",
    "vabsdiff4",
    "vadd",
    "vadd2",
    "vadd4",
    "vavrg2",
    "vavrg4",
    "vmad",
    "vmax",
    "vmax2",
    "vmax4",
    "vmin",
    "vmin2",
    "vmin4",
    "vote",
    "vset",
    "vset2",
    "vset4",
    "vshl",
    "vshr",
    "vsub",
    "vsub2",
    "vsub4",
    "wgmma",
    "wmma",
    "xor",
];

/// Whether `name` is a PTX opcode. Every guard's predicate is asked (`@bra` is a missing
/// predicate, see `check::function::missing_predicate`): a register (`%p1`) fails at its first
/// byte, as every opcode starts with a lowercase letter, rather than after a binary search of
/// `memcmp` calls.
pub fn is_ptx_opcode(name: &str) -> bool {
    name.as_bytes().first().is_some_and(u8::is_ascii_lowercase) && OPCODES.binary_search(&name).is_ok()
}

/// The known opcode nearest to a misspelt one, when it is close enough to be a likely typo.
pub fn closest(name: &str) -> Option<&'static str> {
    OPCODES
        .iter()
        .map(|opcode| (edit_distance(name, opcode), *opcode))
        .filter(|(distance, opcode)| *distance <= 2 && *distance < opcode.len())
        .min()
        .map(|(_, opcode)| opcode)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b_bytes = b.as_bytes();
    let mut previous: Vec<usize> = (0..=b_bytes.len()).collect();
    for (i, a_byte) in a.bytes().enumerate() {
        let mut current = vec![i + 1; b_bytes.len() + 1];
        for (j, b_byte) in b_bytes.iter().enumerate() {
            let substitution = previous[j] + usize::from(a_byte != *b_byte);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        previous = current;
    }
    previous[b_bytes.len()]
}

#[cfg(test)]
mod tests {
    use super::{closest, is_ptx_opcode, OPCODES};

    #[test]
    fn list_is_sorted_for_binary_search() {
        assert!(OPCODES.windows(2).all(|pair| pair[0] < pair[1]));
        // `is_ptx_opcode` passes over names that start otherwise.
        assert!(OPCODES.iter().all(|opcode| opcode.starts_with(|first: char| first.is_ascii_lowercase())));
        assert!(OPCODES.iter().all(|opcode| is_ptx_opcode(opcode)));
        assert!(!is_ptx_opcode("%p1") && !is_ptx_opcode("") && !is_ptx_opcode("Bra"));
    }

    #[test]
    fn suggests_near_names() {
        assert!(is_ptx_opcode("fma"));
        assert!(!is_ptx_opcode("fmaa"));
        assert_eq!(closest("fmaa"), Some("fma"));
        assert_eq!(closest("cvtaa"), Some("cvta"));
        assert_eq!(closest("qqqqqqq"), None);
    }
}
