//! The engine's two ends: one writer for stdout shared by the controller and the worker,
//! and the reader thread that owns stdin.

use std::io::{self, BufRead, Write};
use std::sync::{Arc, Mutex, PoisonError};

use crossbeam_channel::Sender;

use crate::usi::{Command, Response, parse_one};

/// The only way to stdout. Each line is written and flushed under one lock, so lines from
/// the worker (`info`, perft counts) and the controller (`bestmove`, `readyok`) never mix.
#[derive(Clone)]
pub struct Out(Arc<Mutex<Box<dyn Write + Send>>>);

impl Out {
    pub fn new(writer: Box<dyn Write + Send>) -> Out {
        Out(Arc::new(Mutex::new(writer)))
    }

    pub fn send(&self, response: &Response) {
        self.line(&response.to_string());
    }

    pub fn info_string(&self, text: impl Into<String>) {
        self.send(&Response::info_string(text));
    }

    /// `info string error: ...`: the one line every rejected input gets.
    pub fn error(&self, text: impl std::fmt::Display) {
        self.info_string(format!("error: {text}"));
    }

    /// Writes `text` as one line. Only ASCII reaches here: responses clean themselves, and
    /// the other callers write moves and numbers.
    pub fn line(&self, text: &str) {
        // A writer that panicked mid-line left nothing we cannot overwrite with a new line.
        let mut out = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        log::trace!("> {text}");
        let written = writeln!(out, "{text}").and_then(|()| out.flush());
        if let Err(e) = written {
            // The GUI has gone; stdin's end will follow and shut the engine down.
            log::debug!("stdout: {e}");
        }
    }
}

/// What the reader thread passes on.
#[derive(Debug)]
pub enum Input {
    Command(Command),
    /// A line longer than [`MAX_LINE`] bytes, discarded unread.
    TooLong(usize),
    /// End of input or a read error: either way the GUI is gone.
    End,
}

/// Far above any real line (a 1000-move game is about 6 kB), low enough that garbage
/// without newlines cannot make the engine hoard memory.
pub const MAX_LINE: usize = 1 << 20;

/// Reads lines until the end of input, parsing each, and forwards them. Bytes that are not
/// UTF-8 become U+FFFD, so a stray byte costs one bad word, not the whole line.
pub fn read_commands(mut input: impl BufRead, commands: Sender<Input>) {
    let mut line = Vec::new();
    loop {
        let message = read_one(&mut input, &mut line);
        let end = matches!(message, Input::End);
        if commands.send(message).is_err() || end {
            return;
        }
    }
}

/// The first line, as the reader thread would pass it on, and its text (empty unless it is a
/// command), read before the reader starts so that the first line can choose the protocol.
pub fn read_first(input: &mut impl BufRead) -> (Input, String) {
    let mut line = Vec::new();
    let message = read_one(input, &mut line);
    let text = match message {
        Input::Command(_) => String::from_utf8_lossy(&line).into_owned(),
        _ => String::new(),
    };
    (message, text)
}

/// The next line, parsed, using `line` as its buffer.
fn read_one(input: &mut impl BufRead, line: &mut Vec<u8>) -> Input {
    match read_line_capped(input, line, MAX_LINE) {
        Ok(None) => Input::End,
        Ok(Some(length)) if length > MAX_LINE => Input::TooLong(length),
        Ok(Some(_)) => Input::Command(parse_one(&String::from_utf8_lossy(line))),
        Err(e) => {
            log::warn!("stdin: {e}");
            Input::End
        }
    }
}

/// One line into `buf`, keeping at most `cap` bytes of it; returns the whole line's length,
/// newline included, or `None` at the end of input.
fn read_line_capped(
    input: &mut impl BufRead,
    buf: &mut Vec<u8>,
    cap: usize,
) -> io::Result<Option<usize>> {
    buf.clear();
    let mut length = 0;
    loop {
        let available = match input.fill_buf() {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok((length > 0).then_some(length));
        }
        let newline = available.iter().position(|&b| b == b'\n');
        let take = newline.map_or(available.len(), |i| i + 1);
        let room = cap.saturating_sub(buf.len());
        buf.extend_from_slice(&available[..take.min(room)]);
        length += take;
        input.consume(take);
        if newline.is_some() {
            return Ok(Some(length));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn lines(bytes: &[u8], cap: usize) -> Vec<(usize, Vec<u8>)> {
        let mut input = io::BufReader::with_capacity(4, Cursor::new(bytes.to_vec()));
        let mut buf = Vec::new();
        let mut out = Vec::new();
        while let Some(length) = read_line_capped(&mut input, &mut buf, cap).unwrap() {
            out.push((length, buf.clone()));
        }
        out
    }

    #[test]
    fn lines_are_split_and_capped() {
        assert_eq!(
            lines(b"usi\nisready\r\nlast", 100),
            vec![
                (4, b"usi\n".to_vec()),
                (9, b"isready\r\n".to_vec()),
                (4, b"last".to_vec())
            ]
        );
        assert_eq!(
            lines(b"0123456789\nok\n", 5),
            vec![(11, b"01234".to_vec()), (3, b"ok\n".to_vec())]
        );
        assert!(lines(b"", 5).is_empty());
    }

    #[test]
    fn the_first_line_is_read_alone_with_its_text() {
        let mut input = Cursor::new(b"xboard\nprotover 2\n".to_vec());
        let (first, text) = read_first(&mut input);
        assert!(matches!(first, Input::Command(Command::Unknown { .. })));
        assert_eq!(text.trim(), "xboard");
        let (second, text) = read_first(&mut input);
        assert!(matches!(second, Input::Command(_)));
        assert_eq!(
            text, "protover 2\n",
            "the rest is left for whoever reads next"
        );
        assert!(matches!(read_first(&mut input), (Input::End, t) if t.is_empty()));
        let mut long = vec![b'x'; MAX_LINE + 1];
        long.push(b'\n');
        let (first, text) = read_first(&mut Cursor::new(long));
        assert!(matches!(first, Input::TooLong(n) if n == MAX_LINE + 2));
        assert!(text.is_empty());
    }

    #[test]
    fn reader_forwards_parsed_commands_then_end() {
        let (tx, rx) = crossbeam_channel::unbounded();
        let mut input = b"isready\n\xff\xfe bad\n".to_vec();
        input.extend(vec![b'x'; MAX_LINE + 10]);
        input.extend(b"\nquit");
        read_commands(Cursor::new(input), tx);
        let got: Vec<Input> = rx.iter().collect();
        assert!(matches!(got[0], Input::Command(Command::IsReady)));
        assert!(matches!(got[1], Input::Command(Command::Unknown { .. })));
        assert!(matches!(got[2], Input::TooLong(n) if n == MAX_LINE + 11));
        assert!(matches!(got[3], Input::Command(Command::Quit)));
        assert!(matches!(got[4], Input::End));
        assert_eq!(got.len(), 5);
    }
}
