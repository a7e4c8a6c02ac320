import FuzzSupport
import FuzzCodingSupport
import SluiceGzip

/// libFuzzer's entry point: SluiceGzip's `gzip` and `deflate` content codings, through
/// `fuzzContentCoding` (FuzzCodingSupport, where the properties are): the first byte's low bit picks the
/// format and its high four bits the level.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzContentCoding(data, size) { choice in GzipContentCoding(choice & 1 == 0 ? .gzip : .deflate, level: Int32(choice >> 4 & 0x0F)) }
}
