//! Exchange values of the pieces, in the units of the evaluation (a pawn is 100), on the scale
//! the reference engine uses for dai shogi: mobility counts most (a lion near 19 pawns, a free
//! king 13), steppers that promote to golds sit a little above their raw moves.

use super::types::PieceType;

/// The value of `kind`. The king is priced high enough that no exchange gives it up, though
/// with a crown prince beside it its capture does not end the game.
pub const fn value(kind: PieceType) -> i32 {
    use PieceType::*;
    match kind {
        King => 5000,
        CrownPrince => 1200,
        Pawn | GoBetween => 100,
        Stone => 150,
        Iron | Knight => 200,
        Copper => 220,
        Silver => 280,
        Lance => 300,
        Gold | EvilWolf | AngryBoar | CatSword => 320,
        FerociousLeopard | BlindTiger => 350,
        ViolentOx | FlyingDragon => 350,
        DrunkElephant | PromotedGoBetween => 420,
        ReverseChariot => 400,
        PromotedIron | PromotedStone | PromotedKnight | PromotedEvilWolf | PromotedAngryBoar
        | PromotedCatSword | PromotedViolentOx | PromotedFlyingDragon | PromotedPawn => 360,
        SideMover | PromotedCopper => 500,
        VerticalMover | PromotedSilver => 550,
        Whale => 600,
        Bishop | PromotedFerociousLeopard | WhiteHorse => 650,
        FlyingStag => 700,
        Rook | PromotedGold => 750,
        FreeBoar => 800,
        DragonHorse | PromotedBishop | FlyingOx => 850,
        Kirin | Phoenix => 900,
        DragonKing | PromotedRook => 1000,
        FreeKing | PromotedPhoenix => 1300,
        HornedFalcon => 1400,
        SoaringEagle => 1500,
        Lion | PromotedKirin => 1900,
    }
}
