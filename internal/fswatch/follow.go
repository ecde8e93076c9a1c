package fswatch

import "context"

// Follow calls fn once, then again each time path may have changed, until
// ctx is done (it returns nil) or fn fails (it returns fn's error). It
// subscribes to the process-wide watcher (Default), so every follower of
// every package shares one inotify instance; path must be absolute. When a
// kernel limit keeps the watcher from following path, Follow returns that
// *LimitError.
func Follow(ctx context.Context, path string, fn func() error) error {
	w, err := Default()
	if err != nil {
		return err
	}
	sub, err := w.Subscribe(path, Options{})
	if err != nil {
		return err
	}
	defer sub.Close()
	if err := fn(); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-sub.C:
			if err := sub.Err(); err != nil {
				return err
			}
			if err := fn(); err != nil {
				return err
			}
		}
	}
}
