#!/usr/bin/env python3
"""Writes the hand-set evaluation weights: the baseline the fitted weights are measured against.

Usage: python3 tuning/handset_weights.py > src/eval/weights_handset.txt
Layout (see src/eval/features.rs): board[15], hand[8][19], psq[15][81], own_king[15][17][17],
enemy_king[15][17][17], then king safety and mobility: ks_attacks[16], ks_defences[16],
ks_escapes[9], ks_hand_drop[7][9], ks_attacks_hand[8][8], ks_attacker[15], mobility[4][21], board_phase[15][4], hand_phase[8][4];
kinds 1..14 are P L N S B R G K +P +L +N +S +B +R. King-safety values are for the king's owner
(negative = danger).
"""

BOARD = [0, 90, 315, 405, 495, 855, 990, 540, 0, 540, 540, 540, 540, 945, 1395]
# Value of the n-th piece of a kind in hand: a little above the board value, with diminishing returns.
HAND_FIRST = {1: 100, 2: 350, 3: 450, 4: 550, 5: 950, 6: 1100, 7: 600}
GOLDISH = {4, 7, 9, 10, 11, 12}  # silver, gold and the small promoted pieces


def main():
    out = ["# hand-set baseline weights (tuning/handset_weights.py)"]
    out.append("board " + " ".join(map(str, BOARD)))
    hand = []
    for k in range(8):
        for n in range(19):
            v = 0
            if k in HAND_FIRST:
                v = int(HAND_FIRST[k] * (0.96 ** n))
            hand.append(v)
    out.append("hand " + " ".join(map(str, hand)))
    out.append("psq " + " ".join(["0"] * (15 * 81)))
    own, enemy = [], []
    for k in range(15):
        for df in range(-8, 9):
            for dr in range(-8, 9):
                d = max(abs(df), abs(dr))
                o = e = 0
                if k in GOLDISH and d <= 2:
                    o = 30 if d == 1 else 12
                if k in GOLDISH | {13, 14} and d <= 2:
                    e = 25 if d == 1 else 10
                own.append(o)
                enemy.append(e)
    out.append("own_king " + " ".join(map(str, own)))
    out.append("enemy_king " + " ".join(map(str, enemy)))
    # Enemy attacks on the king zone hurt more than linearly; own defenders help, saturating.
    out.append("ks_attacks " + " ".join(str(-(10 * a + a * a)) for a in range(16)))
    out.append("ks_defences " + " ".join(str(6 * min(d, 8)) for d in range(16)))
    out.append("ks_escapes " + " ".join(str(v) for v in [-40, -20, -8, 0, 0, 0, 0, 0, 0]))
    # Enemy hand piece x undefended empty squares next to the king (drop targets).
    per_hole = [2, 4, 6, 8, 8, 10, 10]  # P L N S B R G
    out.append("ks_hand_drop " + " ".join(str(-per_hole[k] * h) for k in range(7) for h in range(9)))
    out.append("ks_attacks_hand " + " ".join(str(-3 * a * n) for a in range(8) for n in range(8)))
    attacker = [0, -4, -6, -8, -8, -8, -10, -10, 0, -10, -10, -10, -10, -15, -20]
    out.append("ks_attacker " + " ".join(map(str, attacker)))
    # Mobility of bishop, rook, horse, dragon: squares not holding an own piece.
    mob = []
    for centre, step in [(5, 4), (6, 3), (7, 4), (9, 3)]:
        mob += [step * (m - centre) for m in range(21)]
    out.append("mobility " + " ".join(map(str, mob)))
    # Material by game phase (pieces in both hands: 0, 1-3, 4-7, 8+) on top of board and hand:
    # left for the fit to find.
    out.append("board_phase " + " ".join(["0"] * (15 * 4)))
    out.append("hand_phase " + " ".join(["0"] * (8 * 4)))
    print("\n".join(out))


if __name__ == "__main__":
    main()
