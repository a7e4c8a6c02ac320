// The plugin contract and its helpers (ContentCodingContract, SplitMix64) are the kit's; the tool's
// users get them with the tool's library.
@_exported import SluiceConformanceKit
