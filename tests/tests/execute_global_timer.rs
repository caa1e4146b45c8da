//! `%globaltimer`, `%globaltimer_lo` and `%globaltimer_hi` on the CPU (ISA 7.8 section 10.28): a
//! nanosecond timer that runs on while the kernel waits, whose halves are its low and high 32
//! bits. Expected values come from the host's own clock around the launch. `%clock_hi` is
//! checked against `%clock64` read around it.

use std::time::{SystemTime, UNIX_EPOCH};

use ptxr_tests::{run_ok, Buffer, Launch};

/// Reads the timer, sleeps 200 microseconds (in 200 `nanosleep`s of a microsecond, PTX's
/// bound being a millisecond), reads it again, and reads both halves.
const TIMER: &str = r#".version 7.8
.target sm_80
.address_size 64

.visible .entry timer(.param .u64 output)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<6>;
    .reg .pred %p<2>;
    ld.param.u64 %rd1, [output];
    mov.u64 %rd2, %globaltimer;
    mov.u32 %r1, 0;
SLEEP:
    nanosleep.u32 1000;
    add.u32 %r1, %r1, 1;
    setp.lt.u32 %p1, %r1, 200;
    @%p1 bra SLEEP;
    mov.u64 %rd3, %globaltimer;
    mov.u32 %r2, %globaltimer_hi;
    mov.u32 %r3, %globaltimer_lo;
    st.global.u64 [%rd1], %rd2;
    st.global.u64 [%rd1+8], %rd3;
    cvt.u64.u32 %rd4, %r2;
    st.global.u64 [%rd1+16], %rd4;
    cvt.u64.u32 %rd5, %r3;
    st.global.u64 [%rd1+24], %rd5;
    ret;
}
"#;

fn now() -> u64 {
    let elapsed = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_else(|error| panic!("{error}"));
    u64::try_from(elapsed.as_nanos()).unwrap_or_else(|error| panic!("{error}"))
}

#[test]
fn the_global_timer_counts_nanoseconds_across_a_sleep() {
    let before = now();
    let result = run_ok(TIMER, &Launch::threads(1), &[Buffer::zeroed("u64", 4)]);
    let after = now();
    let [first, second, high, low] = [result[0][0], result[0][1], result[0][2], result[0][3]];
    assert!(before <= first && first <= second && second <= after, "{before} {first} {second} {after}");
    assert!(second - first >= 200_000, "200 sleeps of a microsecond took {} ns", second - first);
    // The halves were read after `second` and before `after`; the high half moves every 4.3 s.
    let halves = (high << 32) | low;
    assert!(second <= halves && halves <= after, "{second} {halves} {after}");
}

/// `%clock_hi` (section 10.23) between two reads of `%clock64`: the upper 32 bits of the counter.
const CLOCK_HIGH: &str = r#".version 7.8
.target sm_80
.address_size 64

.visible .entry clock_high(.param .u64 output)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [output];
    mov.u64 %rd2, %clock64;
    mov.u32 %r1, %clock_hi;
    mov.u64 %rd3, %clock64;
    st.global.u64 [%rd1], %rd2;
    cvt.u64.u32 %rd4, %r1;
    st.global.u64 [%rd1+8], %rd4;
    st.global.u64 [%rd1+16], %rd3;
    ret;
}
"#;

#[test]
fn clock_high_is_the_upper_half_of_clock64() {
    let result = run_ok(CLOCK_HIGH, &Launch::threads(1), &[Buffer::zeroed("u64", 3)]);
    let [first, high, second] = [result[0][0], result[0][1], result[0][2]];
    assert!(first <= second, "%clock64 went back: {first} {second}");
    assert!(first >> 32 <= high && high <= second >> 32, "%clock_hi {high:#x} outside {first:#x}..{second:#x}");
    assert!(high != 0 || second >> 32 == 0, "%clock_hi read 0 while %clock64 was {second:#x}");
}
