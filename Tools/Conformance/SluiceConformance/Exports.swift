// The plugin contract and its helpers (ContentCodingContract, SplitMix64) are the kit's; the tool's
// users get them with the tool's library.
@_exported import SluiceConformanceKit
// Where the servers are, the vectors and the C plugin fixtures live in a small target the tests share.
@_exported import SluiceTestEnvironment
