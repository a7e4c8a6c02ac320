import Foundation
import SluiceCore
import SluiceGzip

/// `gzip-inflate FILE`: decodes a gzip file with Sluice's streaming decoder in 64 KiB reads and prints
/// `{"bytes": <decoded>, "seconds": S}`; compared with `gzip -dc` by Tools/Benchmarks/gzip.sh.
@main
struct GzipInflate {
    static func main() throws {
        guard CommandLine.arguments.count == 2, let file = FileHandle(forReadingAtPath: CommandLine.arguments[1]) else {
            FileHandle.standardError.write(Data("usage: gzip-inflate FILE.gz\n".utf8))
            exit(2)
        }
        let decoder = GzipContentCoding(.gzip).makeDecoder(limits: ContentCodingLimits(maximumOutputBytes: .max))
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
