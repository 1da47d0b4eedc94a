"""The referee behind tuning/match.py (standard shogi), tuning/yari_match.py, tuning/dai_match.py
and tuning/levels.py: engine processes under deadlines (engines, hachu), one game loop over a rules
object with the fault verdicts and the match loop with resume (games), each game's rules
(standard, yari, dai), and the statistics (stats)."""
