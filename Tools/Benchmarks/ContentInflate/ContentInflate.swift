import Foundation
import SluiceBrotli
import SluiceCore
import SluiceGzip
import SluiceZstd

/// `content-inflate gzip|br|zstd FILE`: decodes a file with Sluice's streaming decoder for that content
/// coding in 64 KiB reads and prints `{"bytes": <decoded>, "seconds": S}`; compared with `gzip -dc`,
/// `brotli -dc` and `zstd -dc` by Tools/Benchmarks/compression.sh.
@main
struct ContentInflate {
    static func main() throws {
        let codings: [String: any ContentCoding] = [
            "gzip": GzipContentCoding(.gzip), "br": BrotliContentCoding(), "zstd": ZstdContentCoding(),
        ]
        let arguments = CommandLine.arguments
        guard arguments.count == 3, let coding = codings[arguments[1]], let file = FileHandle(forReadingAtPath: arguments[2]) else {
            FileHandle.standardError.write(Data("usage: content-inflate gzip|br|zstd FILE\n".utf8))
            exit(2)
        }
        let decoder = coding.makeDecoder(limits: ContentCodingLimits(maximumOutputBytes: .max))
        var decoded: Int64 = 0
        let started = ContinuousClock.now
        while true {
            let chunk = file.readData(ofLength: 64 * 1024)
            if chunk.isEmpty { break }
            try chunk.withUnsafeBytes { bytes in
                try decoder.decode(bytes) { (output) throws(SluiceError) in decoded += Int64(output.count) }
            }
        }
        try decoder.finish { (output) throws(SluiceError) in decoded += Int64(output.count) }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(#"{"bytes": \#(decoded), "seconds": \#(seconds)}"#)
    }
}
