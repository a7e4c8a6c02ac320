import FuzzCodingSupport
import SluiceBrotli

/// libFuzzer's entry point: SluiceBrotli's `br` content coding, through `fuzzContentCoding`
/// (FuzzCodingSupport, where the properties are): the first byte's high four bits pick the quality.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzContentCoding(data, size) { choice in BrotliContentCoding(quality: Int32(choice >> 4 & 0x0F)) }
}
