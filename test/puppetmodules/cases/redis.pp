# arioch-redis, README
# native: same
# noop: clean
include redis
