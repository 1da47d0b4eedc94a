// Perft with the C++ rules core of cshogi (Apery's), counted the way `kirin bench perft`
// counts: legal moves generated at every node, the last ply counted without being played.
#include <chrono>
#include <cstdio>
#include <string>
#include "init.hpp"
#include "position.hpp"
#include "generateMoves.hpp"

static u64 perft(Position& pos, int depth) {
    MoveList<LegalAll> moves(pos);
    if (depth == 1) return moves.size();
    u64 nodes = 0;
    StateInfo st;
    for (; !moves.end(); ++moves) {
        const Move m = moves.move();
        pos.doMove(m, st);
        nodes += perft(pos, depth - 1);
        pos.undoMove(m);
    }
    return nodes;
}

int main(int argc, char** argv) {
    initTable();
    Position::initZobrist();
    const char* cases[][3] = {
        {"startpos", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", "6"},
        {"matsuri", "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1", "4"},
    };
    int shift = argc > 1 ? std::stoi(argv[1]) : 0;  // fewer plies, for a quick check
    for (auto& c : cases) {
        Position pos;
        pos.set(std::string(c[1]));
        int depth = std::stoi(c[2]) - shift;
        auto t0 = std::chrono::steady_clock::now();
        u64 n = perft(pos, depth);
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        std::printf("%s depth %d: %llu leaves, %.0f ms, %.1f M leaves/s\n", c[0], depth,
                    (unsigned long long)n, ms, n / ms / 1000.0);
    }
}
