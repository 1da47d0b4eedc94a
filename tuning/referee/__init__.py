"""The referee behind tuning/match.py (standard shogi), tuning/yari_match.py, tuning/dai_match.py
and tuning/spsa.py: engine processes under deadlines (engines), and the statistics (stats)."""
