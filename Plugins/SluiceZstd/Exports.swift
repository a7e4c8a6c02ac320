// What this module's public API uses, usable by a target that imports only this module: a user who
// depends on this product alone never declares these (see "Using Sluice" in README.md).
@_exported import SluiceCore
