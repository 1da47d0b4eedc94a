//! The network file: `KIRINNET` magic, a format version, an architecture string that must match
//! this build's network exactly, the base (0, or the FNV-1a hash of the linear weights file the
//! network corrects), the parameters (little endian), and an FNV-1a checksum of every byte before
//! it. A file that fails any check is refused whole, with the reason.

use super::{HIDDEN, INPUTS, Network, QA, QB};

const MAGIC: &[u8; 8] = b"KIRINNET";
const VERSION: u32 = 1;

/// What the parameters mean; a file made for another layout is refused, not misread.
pub const ARCHITECTURE: &str = concat!(
    "king-bucketed psq-hand 12 x 2344 -> 64 x 2 -> 1, clipped relu, ",
    "i16 first layer scaled 255, i16 output scaled 1024"
);

// The architecture string names the constants; keep them in step.
const _: () = assert!(INPUTS == 12 * 2344 && HIDDEN == 64 && QA == 255 && QB == 1024);

/// What a network that corrects the embedded linear evaluation stores as its base.
fn linear_base_id() -> u64 {
    fnv1a(crate::eval::linear::embedded_text().as_bytes())
}

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

pub fn write(net: &Network) -> Vec<u8> {
    let (bias, weights, out, out_bias) = net.parts();
    let mut b = Vec::with_capacity(64 + 2 * (INPUTS + 3) * HIDDEN);
    b.extend_from_slice(MAGIC);
    b.extend_from_slice(&VERSION.to_le_bytes());
    b.extend_from_slice(&(ARCHITECTURE.len() as u32).to_le_bytes());
    b.extend_from_slice(ARCHITECTURE.as_bytes());
    let base = if net.adds_linear() {
        linear_base_id()
    } else {
        0
    };
    b.extend_from_slice(&base.to_le_bytes());
    let rows = std::iter::once(bias)
        .chain(weights.iter())
        .chain(out.iter());
    for row in rows {
        for v in row {
            b.extend_from_slice(&v.to_le_bytes());
        }
    }
    b.extend_from_slice(&out_bias.to_le_bytes());
    let sum = fnv1a(&b);
    b.extend_from_slice(&sum.to_le_bytes());
    b
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| "file is truncated".to_string())?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().unwrap_or([0; 4]),
        ))
    }
    fn row(&mut self) -> Result<[i16; HIDDEN], String> {
        let raw = self.take(2 * HIDDEN)?;
        let mut r = [0i16; HIDDEN];
        for (x, c) in r.iter_mut().zip(raw.chunks_exact(2)) {
            *x = i16::from_le_bytes([c[0], c[1]]);
        }
        Ok(r)
    }
}

pub fn read(bytes: &[u8]) -> Result<Network, String> {
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        return Err("not a kirin network file (bad magic)".into());
    }
    if bytes.len() < MAGIC.len() + 8 + 8 {
        return Err("file is truncated".into());
    }
    let (body, sum) = bytes.split_at(bytes.len() - 8);
    let mut r = Reader {
        bytes: body,
        at: MAGIC.len(),
    };
    let version = r.u32()?;
    if version != VERSION {
        return Err(format!(
            "format version {version}, this build reads {VERSION}"
        ));
    }
    let len = r.u32()? as usize;
    let arch = String::from_utf8_lossy(r.take(len)?).into_owned();
    if arch != ARCHITECTURE {
        return Err(format!(
            "architecture '{arch}', this build runs '{ARCHITECTURE}'"
        ));
    }
    if fnv1a(body).to_le_bytes() != sum {
        return Err("checksum mismatch (file damaged)".into());
    }
    let base = u64::from(r.u32()?) | (u64::from(r.u32()?) << 32);
    let adds_linear = match base {
        0 => false,
        id if id == linear_base_id() => true,
        _ => return Err("made to correct other linear weights than this build's".into()),
    };
    let bias = r.row()?;
    let weights = (0..INPUTS)
        .map(|_| r.row())
        .collect::<Result<Vec<_>, _>>()?;
    let out = [r.row()?, r.row()?];
    let out_bias = i32::from_le_bytes(r.take(4)?.try_into().unwrap_or([0; 4]));
    if r.at != body.len() {
        return Err(format!("{} bytes too many", body.len() - r.at));
    }
    Network::from_parts(bias, weights, out, out_bias, adds_linear)
}

#[cfg(test)]
mod tests {
    use super::super::tests::random_network;
    use super::*;
    use crate::shogi::Position;

    #[test]
    fn a_written_network_reads_back_identically() {
        let net = random_network(8);
        let bytes = write(&net);
        let again = read(&bytes).unwrap();
        assert_eq!(again.to_bytes(), bytes);
        let pos = Position::startpos();
        assert_eq!(net.evaluate_fresh(&pos), again.evaluate_fresh(&pos));
    }

    #[test]
    fn damaged_files_are_refused_with_a_reason() {
        let bytes = write(&random_network(9));
        let mut flipped = bytes.clone();
        flipped[5000] ^= 1;
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (b"hello".to_vec(), "magic"),
            (bytes[..bytes.len() / 2].to_vec(), "checksum"),
            (bytes[..20].to_vec(), "truncated"),
            (flipped, "checksum"),
            (
                {
                    let mut v = bytes.clone();
                    v[8] = 9;
                    v
                },
                "version",
            ),
            (
                {
                    let mut v = bytes.clone();
                    v[16] = b'X';
                    v
                },
                "architecture",
            ),
        ];
        for (data, what) in cases {
            let err = read(&data).err().unwrap_or_default();
            assert!(err.contains(what), "{what}: {err}");
        }
    }
}
