// The one source of arena_pch, whose precompiled header the other targets reuse.
