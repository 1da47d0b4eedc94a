//! A move of no game, for the tests of the search's own parts (hash table, reports): they need a
//! [`GameMove`] and nothing else of a game. Tests that search real games live with the games
//! (`crate::game::search_tests`).

use crate::game::GameMove;
use std::fmt;

/// Any 32 bits; written as its number in hexadecimal.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TestMove(pub u32);

impl fmt::Display for TestMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:x}", self.0)
    }
}

impl GameMove for TestMove {
    const NONE: TestMove = TestMove(0);
    fn is_none(self) -> bool {
        self.0 == 0
    }
    fn is_promotion(self) -> bool {
        false
    }
    fn bits(self) -> u32 {
        self.0
    }
    fn from_bits(bits: u32) -> TestMove {
        TestMove(bits)
    }
}
