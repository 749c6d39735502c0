// A user of the library imports WayLoopKit and nothing else: the pure core's value types
// (options, entries, states, errors, status) are part of its API.
@_exported import WayLoopCore
