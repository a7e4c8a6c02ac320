// swift-foundation (Swift 6.3.1): String(contentsOf:encoding:) (and Data(contentsOf:), through the same
// readBytesFromFile) leaks a 4 KiB buffer each time it reads an empty
// file. Build and run under AddressSanitizer to see it (no Sluice code involved):
//
//   swiftc -sanitize=address Tools/Memory/empty_file_string_leak.swift -o /tmp/empty-leak
//   ASAN_OPTIONS=detect_leaks=1 /tmp/empty-leak
//
// Reported: "Direct leak of 12288 byte(s) in 3 object(s)", allocated in readBytesFromFile under
// String.init(contentsOf:encoding:), one for each of the three empty reads; the non-empty reads leak nothing.
// The test suite reads child processes' (often empty) output files this way, which is where `make sanitize`'s
// exit-time LeakSanitizer report lists it (docs/reliability.md).
import Foundation

let empty = URL(fileURLWithPath: NSTemporaryDirectory() + "sluice-empty-\(getpid()).txt")
let small = URL(fileURLWithPath: NSTemporaryDirectory() + "sluice-small-\(getpid()).txt")
_ = FileManager.default.createFile(atPath: empty.path, contents: nil)
try! "hello\n".write(to: small, atomically: true, encoding: .utf8)
defer {
    try? FileManager.default.removeItem(at: empty)
    try? FileManager.default.removeItem(at: small)
}
for _ in 0..<3 {
    _ = try? String(contentsOf: empty, encoding: .utf8)
    _ = try? String(contentsOf: small, encoding: .utf8)
}
print("read 3 empty and 3 non-empty files")
