import Foundation
import SluiceCache
import SluiceCore

// Writes responses into a disk cache store as fast as it can, for SluiceCacheTests' crash and
// two-process tests: sluice-cache-writer DIRECTORY COUNT SEED [CAPACITY]
// Each body is pseudo-random, 1 byte to 600 KiB (large ones are streamed when served), and its head
// carries its length and FNV-1a digest, so a reader can tell a whole body from a torn or mismatched one.
let arguments = CommandLine.arguments
guard arguments.count >= 4, let count = Int(arguments[2]), var state = UInt64(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: sluice-cache-writer DIRECTORY COUNT SEED [CAPACITY]\n".utf8))
    exit(2)
}
let capacity = arguments.count > 4 ? Int(arguments[4]) ?? (64 << 20) : 64 << 20
let store: DiskCacheStore
do {
    store = try DiskCacheStore(
        directory: URL(fileURLWithPath: arguments[1]), capacity: capacity, maximumEntrySize: 1 << 20)
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}

func nextRandom() -> UInt64 {
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    return state >> 17
}

for round in 0..<count {
    let length = nextRandom() % 7 == 0 ? Int(nextRandom() % (600 << 10)) + 1 : Int(nextRandom() % 4096) + 1
    var bytes = [UInt8](repeating: 0, count: length)
    var digest: UInt64 = 0xcbf2_9ce4_8422_2325
    for index in 0..<length {
        let byte = UInt8(truncatingIfNeeded: nextRandom())
        bytes[index] = byte
        digest = (digest ^ UInt64(byte)) &* 0x100_0000_01b3
    }
    let body = Data(bytes)
    let key = "http://writer.test/\(nextRandom() % 40)"
    let headers = HTTPHeaders([
        try! HTTPHeader(name: "X-Length", value: String(length)),
        try! HTTPHeader(name: "X-Digest", value: String(digest, radix: 16)),
        try! HTTPHeader(name: "X-Round", value: String(round)),
    ])
    let response = CachedResponse(
        url: URL(string: key)!, statusCode: 200, headers: headers, requestDate: Date(), responseDate: Date())
    guard let writer = store.makeWriter(for: response, key: key) else { continue }
    // In pieces, as a body arrives.
    var offset = 0
    var kept = true
    while offset < length, kept {
        let end = min(length, offset + 16 << 10)
        kept = writer.write(body.subdata(in: offset..<end))
        offset = end
    }
    if kept { writer.commit() }
}
print("wrote \(count)")
