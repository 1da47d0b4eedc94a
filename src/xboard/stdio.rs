//! kirin under XBoard on standard input and output: a reader thread owns the input and tells
//! a running search about the lines that end it before they are queued; the calling thread
//! hands each line to the [`Session`] and writes its answers.

use super::kirin::{Interrupt, Interrupts, KirinEngine};
use super::output::Output;
use super::protocol::{Command, parse_command};
use super::session::Session;
use std::io::{self, BufRead, Write};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;

/// Far above any real line, low enough that input without newlines cannot hoard memory.
const MAX_LINE: usize = 1 << 16;

/// Speaks CECP on stdin/stdout until `quit` or the end of input.
pub fn run_stdio() {
    run(
        io::BufReader::new(io::stdin()),
        Box::new(io::stdout()),
        "xboard",
    );
}

/// Speaks CECP on any pair of streams. `first` is a line already read (the `xboard` that
/// made the USI loop hand over), handled before the rest of `input`.
pub fn run(input: impl BufRead + Send + 'static, output: Box<dyn Write + Send>, first: &str) {
    let interrupts = Arc::new(Interrupts::default());
    let output = Arc::new(Mutex::new(output));
    let (lines_tx, lines) = crossbeam_channel::unbounded::<Option<String>>();
    let reader_interrupts = Arc::clone(&interrupts);
    let reader_output = Arc::clone(&output);
    let reader = thread::Builder::new()
        .name("xboard-reader".into())
        .spawn(move || read_lines(input, &reader_interrupts, &reader_output, &lines_tx));
    if let Err(e) = reader {
        log::error!("cannot start the input thread: {e}");
        return;
    }
    let name = concat!("kirin ", env!("CARGO_PKG_VERSION"));
    let mut session = Session::new(KirinEngine::new(Arc::clone(&interrupts)), name);
    let mut write = |line: Output| write_line(&output, &line);
    session.handle_each(first, &mut write);
    // `None`: the end of input, which is taken as `quit`.
    while let Ok(Some(line)) = lines.recv() {
        interrupts.lower(interrupt_of(&line));
        log::trace!("< {line}");
        session.handle_each(&line, &mut write);
        if session.finished() {
            break;
        }
    }
}

/// Writes one line and flushes it, under the lock that keeps the two threads' lines whole.
fn write_line(output: &Mutex<Box<dyn Write + Send>>, line: &Output) {
    log::trace!("> {line}");
    // A writer that panicked mid-line left nothing a new line cannot follow.
    let mut output = output.lock().unwrap_or_else(PoisonError::into_inner);
    if let Err(e) = writeln!(output, "{line}").and_then(|()| output.flush()) {
        // The GUI has gone; the end of input will follow.
        log::debug!("stdout: {e}");
    }
}

/// What `line`, read while a search may run, does to it.
pub fn interrupt_of(line: &str) -> Interrupt {
    match parse_command(line) {
        // Move now, or leave analysis: the search ends and its result stands.
        Ok(Command::MoveNow | Command::Exit | Command::UserMove(_) | Command::Move(_)) => {
            Interrupt::Stop
        }
        // The game the search was for is gone or changed; its move must not be sent.
        Ok(
            Command::Force
            | Command::New
            | Command::Quit
            | Command::Result { .. }
            | Command::Undo
            | Command::Remove
            | Command::SetBoard(_)
            | Command::Variant(_)
            | Command::Edit
            | Command::Analyze,
        ) => Interrupt::Abandon,
        // Clock updates, `ping` (answered after the move, as CECP asks) and the rest wait.
        _ => Interrupt::None,
    }
}

fn read_lines(
    mut input: impl BufRead,
    interrupts: &Interrupts,
    output: &Mutex<Box<dyn Write + Send>>,
    lines: &crossbeam_channel::Sender<Option<String>>,
) {
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let read = io::Read::take(&mut input, MAX_LINE as u64).read_until(b'\n', &mut buf);
        match read {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if buf.last() != Some(&b'\n') && buf.len() >= MAX_LINE {
            // Too long to be a command: skip the rest of it.
            skip_line(&mut input);
            log::warn!("input line over {MAX_LINE} bytes ignored");
            continue;
        }
        let line = String::from_utf8_lossy(&buf).trim_end().to_string();
        // CECP wants `ping` answered at once during analysis, which never ends by itself.
        // Only once every earlier line was taken is the analysis running the one for the
        // position XBoard has (the queue is looked at before the analysis, which the session
        // starts only after taking the line that asked for it).
        if let Ok(Command::Ping(n)) = parse_command(&line)
            && lines.is_empty()
            && interrupts.analysing()
        {
            write_line(output, &Output::Pong(n));
            continue;
        }
        let kind = interrupt_of(&line);
        interrupts.raise(kind);
        if lines.send(Some(line)).is_err() {
            return;
        }
    }
    // Whatever runs now was asked for by a GUI that is gone.
    interrupts.raise(Interrupt::Abandon);
    let _ = lines.send(None);
}

/// Consumes input up to and including the next newline, keeping none of it.
fn skip_line(input: &mut impl BufRead) {
    loop {
        let (used, found) = match input.fill_buf() {
            Ok([]) | Err(_) => return,
            Ok(bytes) => match bytes.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (bytes.len(), false),
            },
        };
        input.consume(used);
        if found {
            return;
        }
    }
}
