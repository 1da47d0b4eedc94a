//! Prints kirin's answer to XBoard's `variant dai` (the `setup` line and the `piece` lines),
//! one per line, for `tests/oracle/xboard_stub.py`, which checks it against the real XBoard.

fn main() {
    for line in kirin::xboard::dai::description() {
        println!("{line}");
    }
}
