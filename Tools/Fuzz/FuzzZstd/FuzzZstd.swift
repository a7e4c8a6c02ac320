import FuzzCodingSupport
import SluiceZstd

/// libFuzzer's entry point: SluiceZstd's `zstd` content coding (its 8 MiB window limit included),
/// through `fuzzContentCoding` (FuzzCodingSupport, where the properties are): the first byte's high four
/// bits pick the level.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzContentCoding(data, size) { choice in ZstdContentCoding(level: Int32(choice >> 4 & 0x0F) + 1) }
}
