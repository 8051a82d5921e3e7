// Drives the verilated yardstick wrapper for gen/tests/yardstick.rs:
//   Vtop CYCLES PCT INJECT_AT   (INJECT_AT < 0: never)
// Holds reset for 4 cycles, raises `en`, runs CYCLES cycles with `inject` high
// for the one cycle INJECT_AT, and prints the counts and the error flag just
// before the injection and at the end.
#include "Vtop.h"
#include "verilated.h"
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: Vtop CYCLES PCT INJECT_AT\n");
        return 2;
    }
    const long cycles = atol(argv[1]);
    const int pct = atoi(argv[2]);
    const long inject_at = atol(argv[3]);
    VerilatedContext ctx;
    Vtop top{&ctx};
    top.rst = 1;
    top.en = 0;
    top.seed = 0;
    top.pct = pct;
    top.inject = 0;
    int err_before = -1;
    for (long n = -4; n < cycles; ++n) {
        if (n == 0) {
            top.rst = 0;
            top.en = 1;
        }
        top.inject = n == inject_at;
        if (n == inject_at) err_before = top.err;
        top.clk = 0;
        top.eval();
        top.clk = 1;
        top.eval();
    }
    printf("tx=%llu rx=%llu err_before=%d err=%d\n", (unsigned long long)top.tx_beats,
           (unsigned long long)top.rx_beats, err_before, top.err);
    top.final();
    return 0;
}
