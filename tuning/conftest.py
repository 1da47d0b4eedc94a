# pytest: tuning/out holds exported source trees of other revisions (tuning/build_rev.sh) and match
# records; never collect tests from there.
collect_ignore_glob = ["out/*"]
