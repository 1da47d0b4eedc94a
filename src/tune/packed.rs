//! The 32-byte packed position (PackedSfen) and the 16-bit move of the shogi NNUE data formats,
//! written from their published definitions: YaneuraOu's `PackedSfenValue` (`.bin`) and the
//! chained `sbinpack` both start every record with these 32 bytes.
//!
//! The bits run from the low bit of byte 0 upwards: the side to move (1 bit), Black's and
//! White's king squares (7 bits each, square = file * 9 + rank as in kirin), then every other
//! square from 1a to 9i as a Huffman code (empty `0`; a piece's code, a promotion bit unless it
//! is a gold, a colour bit), then the pieces in hand (the board code without its leading 0, a 0
//! promotion bit unless gold, the colour bit), then the pieces of the set that are neither on the
//! board nor in a hand, so that a handicap start still fills exactly 256 bits: these "box"
//! pieces are the hand code with the promotion bit set and no colour bit.

use crate::shogi::{Color, Move, Piece, PieceType, Position, Square, legal_moves};

/// The seven kinds in the order the hands and the box are written, with their counts in a set.
const KINDS: [(PieceType, u32); 7] = [
    (PieceType::Pawn, 18),
    (PieceType::Lance, 4),
    (PieceType::Knight, 4),
    (PieceType::Silver, 4),
    (PieceType::Gold, 4),
    (PieceType::Bishop, 2),
    (PieceType::Rook, 2),
];

/// A kind's code on the board and its length in bits (read from the low bit).
fn board_code(pt: PieceType) -> (u32, u32) {
    match pt {
        PieceType::Pawn => (0b01, 2),
        PieceType::Lance => (0b0011, 4),
        PieceType::Knight => (0b1011, 4),
        PieceType::Silver => (0b0111, 4),
        PieceType::Gold => (0b01111, 5),
        PieceType::Bishop => (0b011111, 6),
        _ => (0b111111, 6),
    }
}

struct Bits<'a> {
    data: &'a mut [u8; 32],
    at: u32,
}

impl Bits<'_> {
    fn put(&mut self, value: u32, n: u32) -> Result<(), String> {
        for i in 0..n {
            if self.at >= 256 {
                return Err("position does not fit in 256 bits".into());
            }
            if (value >> i) & 1 == 1 {
                self.data[(self.at / 8) as usize] |= 1 << (self.at % 8);
            }
            self.at += 1;
        }
        Ok(())
    }
}

/// Packs `pos` into 32 bytes. Positions without both kings, or with more pieces of a kind than
/// a set holds, have no packed form.
pub fn pack(pos: &Position) -> Result<[u8; 32], String> {
    let mut data = [0u8; 32];
    let mut w = Bits {
        data: &mut data,
        at: 0,
    };
    let (Some(bk), Some(wk)) = (pos.king_square(Color::Black), pos.king_square(Color::White))
    else {
        return Err("a packed position needs both kings".into());
    };
    w.put(u32::from(pos.side_to_move() == Color::White), 1)?;
    w.put(bk.index() as u32, 7)?;
    w.put(wk.index() as u32, 7)?;
    let mut used = [0u32; 7];
    let slot = |pt: PieceType| KINDS.iter().position(|&(k, _)| k == pt.unpromote());
    for sq in Square::all() {
        if sq == bk || sq == wk {
            continue;
        }
        let p = pos.piece_on(sq);
        if p.is_none() {
            w.put(0, 1)?;
            continue;
        }
        let base = p.kind().unpromote();
        let i = slot(base).ok_or("a third king on the board")?;
        used[i] += 1;
        let (code, n) = board_code(base);
        w.put(code, n)?;
        if base != PieceType::Gold {
            w.put(u32::from(p.kind().is_promoted()), 1)?;
        }
        w.put(u32::from(p.color() == Color::White), 1)?;
    }
    for c in Color::ALL {
        for (i, &(pt, _)) in KINDS.iter().enumerate() {
            let (code, n) = board_code(pt);
            for _ in 0..pos.hand(c).count(pt) {
                used[i] += 1;
                w.put(code >> 1, n - 1)?;
                if pt != PieceType::Gold {
                    w.put(0, 1)?;
                }
                w.put(u32::from(c == Color::White), 1)?;
            }
        }
    }
    for (i, &(pt, total)) in KINDS.iter().enumerate() {
        if used[i] > total {
            return Err(format!("more than {total} of {pt:?}"));
        }
        let (code, n) = board_code(pt);
        for _ in used[i]..total {
            // The hand code with its promotion bit set marks a piece in the box. A gold has no
            // promotion bit, so its box code is one no hand piece uses (a promoted White silver).
            if pt == PieceType::Gold {
                w.put(0b11011, 5)?;
            } else {
                w.put(code >> 1 | 1 << (n - 1), n)?;
                w.put(0, 1)?;
            }
        }
    }
    if w.at != 256 {
        return Err(format!("packed position has {} bits, not 256", w.at));
    }
    Ok(data)
}

struct Reader<'a> {
    data: &'a [u8; 32],
    at: u32,
}

impl Reader<'_> {
    fn bit(&mut self) -> Result<u32, String> {
        if self.at >= 256 {
            return Err("packed position: ran past 256 bits".into());
        }
        let b = u32::from(self.data[(self.at / 8) as usize] >> (self.at % 8) & 1);
        self.at += 1;
        Ok(b)
    }
    fn bits(&mut self, n: u32) -> Result<u32, String> {
        let mut v = 0;
        for i in 0..n {
            v |= self.bit()? << i;
        }
        Ok(v)
    }
}

/// What a code after the board stands for.
enum Spare {
    Hand(Color, PieceType),
    Box(PieceType),
}

/// Reads one hand or box piece: the kind's hand code, then (unless a gold) the promotion bit,
/// which marks a box piece, then the colour bit of a hand piece.
fn read_spare(r: &mut Reader) -> Result<Spare, String> {
    let mut v = 0;
    for n in 1..=5 {
        v |= r.bit()? << (n - 1);
        let kind = KINDS.iter().find(|&&(pt, _)| {
            let (code, len) = board_code(pt);
            len - 1 == n && code >> 1 == v
        });
        if let Some(&(pt, _)) = kind {
            if pt == PieceType::Gold {
                let c = if r.bit()? == 1 {
                    Color::White
                } else {
                    Color::Black
                };
                return Ok(Spare::Hand(c, pt));
            }
            let promoted = r.bit()?;
            let white = r.bit()?;
            return match (promoted, white) {
                (0, 0) => Ok(Spare::Hand(Color::Black, pt)),
                (0, _) => Ok(Spare::Hand(Color::White, pt)),
                (_, 0) => Ok(Spare::Box(pt)),
                // A promoted White silver is how the box writes a gold.
                _ if pt == PieceType::Silver => Ok(Spare::Box(PieceType::Gold)),
                _ => Err("packed position: bad piece code".into()),
            };
        }
    }
    Err("packed position: bad piece code".into())
}

/// Unpacks 32 bytes into a position at move number `ply`.
pub fn unpack(data: &[u8; 32], ply: u32) -> Result<Position, String> {
    let mut r = Reader { data, at: 0 };
    let side = r.bit()?;
    let bk = r.bits(7)? as usize;
    let wk = r.bits(7)? as usize;
    if bk >= 81 || wk >= 81 || bk == wk {
        return Err("packed position: bad king squares".into());
    }
    let mut board = [Piece::NONE; 81];
    board[bk] = Piece::new(Color::Black, PieceType::King);
    board[wk] = Piece::new(Color::White, PieceType::King);
    let mut count = [0u32; 7];
    for (sq, cell) in board.iter_mut().enumerate() {
        if sq == bk || sq == wk || r.bit()? == 0 {
            continue;
        }
        // The codes are prefix-free: grow the value a bit at a time until it is one of them.
        let mut v = 1;
        let mut len = 1;
        let pt = loop {
            v |= r.bit()? << len;
            len += 1;
            if let Some(&(pt, _)) = KINDS.iter().find(|&&(pt, _)| board_code(pt) == (v, len)) {
                break pt;
            }
            if len >= 6 {
                return Err("packed position: bad piece code".into());
            }
        };
        let promoted = pt != PieceType::Gold && r.bit()? == 1;
        let c = if r.bit()? == 1 {
            Color::White
        } else {
            Color::Black
        };
        count[KINDS.iter().position(|&(k, _)| k == pt).unwrap_or(0)] += 1;
        *cell = Piece::new(c, if promoted { pt.promote() } else { pt });
    }
    let mut hands = [crate::shogi::Hand::EMPTY; 2];
    while r.at < 256 {
        let pt = match read_spare(&mut r)? {
            Spare::Hand(c, pt) => {
                hands[c.index()].add(pt);
                pt
            }
            Spare::Box(pt) => pt,
        };
        count[KINDS.iter().position(|&(k, _)| k == pt).unwrap_or(0)] += 1;
    }
    if KINDS.iter().zip(count).any(|(&(_, total), n)| n != total) {
        return Err("packed position: the pieces are not one set".into());
    }
    let mut sfen = String::with_capacity(96);
    crate::shogi::board::write_sfen_board(&mut sfen, &board, 9);
    sfen.push_str(if side == 1 { " w " } else { " b " });
    crate::shogi::write_sfen_hands(&mut sfen, hands);
    sfen.push_str(&format!(" {}", ply.max(1)));
    Position::from_sfen(&sfen).map_err(|e| format!("packed position: {e}"))
}

const MOVE16_DROP: u16 = 1 << 14;
const MOVE16_PROMOTE: u16 = 1 << 15;

/// A move in the 16 bits of these formats: destination (bits 0-6), origin square or, for a
/// drop, the dropped kind (bits 7-13, pawn 1 .. rook 6, gold 7 as in kirin), drop flag (bit 14),
/// promotion flag (bit 15).
pub fn move16(m: Move) -> u16 {
    let to = m.to().index() as u16;
    if m.is_drop() {
        to | (m.dropped() as u16) << 7 | MOVE16_DROP
    } else {
        to | (m.from().index() as u16) << 7 | if m.is_promotion() { MOVE16_PROMOTE } else { 0 }
    }
}

/// The legal move of `pos` that `raw` stands for, if any.
pub fn move_from16(pos: &Position, raw: u16) -> Option<Move> {
    legal_moves(pos).into_iter().find(|&m| move16(m) == raw)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_position_round_trips_and_matches_the_published_bytes() {
        let pos = Position::startpos();
        let data = pack(&pos).unwrap();
        // The first bytes as ShogiArena's rsshogi writes them for the start position.
        assert_eq!(&data[..4], &[0x58, 0xa4, 0x51, 0x22]);
        assert_eq!(unpack(&data, 1).unwrap().to_sfen(), pos.to_sfen());
    }

    #[test]
    fn moves_use_the_published_bits() {
        let pos = Position::startpos();
        assert_eq!(move16(pos.parse_move("7g7f").unwrap()), 0x1e3b);
        let p = Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b GP 1").unwrap();
        assert_eq!(move16(p.parse_move("P*5e").unwrap()), 0x40a8);
        assert_eq!(move16(p.parse_move("G*5e").unwrap()), 0x43a8);
    }
}
