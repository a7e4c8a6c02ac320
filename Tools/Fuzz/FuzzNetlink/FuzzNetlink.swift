import FuzzSupport
@_spi(Fuzzing) import SluiceReachability

/// libFuzzer's entry point: SluiceReachability's rtnetlink parser, through the `NetlinkReading` entry
/// point, on the input as one datagram from the kernel (link, address, route, error, done and overrun
/// messages, with their attributes and nested attributes).
///
/// A failure is a crash, a sanitizer report, a timeout, or a broken property: a datagram of n bytes
/// holds at most n / 16 messages (a message is at least its 16-byte header).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let datagram = Array(UnsafeBufferPointer(start: data, count: size))
    let (messages, affecting) = NetlinkReading.read(datagram)
    guard messages <= size / 16, affecting <= messages else {
        propertyFailed("\(messages) messages (\(affecting) affecting reachability) in \(size) bytes")
    }
    return 0
}
