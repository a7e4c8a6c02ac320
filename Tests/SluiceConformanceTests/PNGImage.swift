import CZlib
import Foundation

/// The pixels of an 8-bit, non-interlaced RGB or RGBA PNG (what Chromium's screenshots are), enough to
/// ask what colours a rendered page shows and where.
struct PNGImage {
    let width: Int
    let height: Int
    /// Bytes per pixel: 3 (RGB) or 4 (RGBA).
    let channels: Int
    /// Unfiltered rows, `width * channels` bytes each.
    let pixels: [UInt8]

    struct Unreadable: Error, CustomStringConvertible { let description: String }

    init(contentsOf url: URL) throws {
        let data = [UInt8](try Data(contentsOf: url))
        guard data.count > 8, data.prefix(8) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] else {
            throw Unreadable(description: "\(url.path) is not a PNG")
        }
        func be32(_ at: Int) -> Int { data[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        var offset = 8
        var (width, height, channels) = (0, 0, 0)
        var compressed: [UInt8] = []
        while offset + 8 <= data.count {
            let length = be32(offset)
            let type = String(decoding: data[offset + 4..<offset + 8], as: UTF8.self)
            let body = offset + 8
            guard body + length <= data.count else { throw Unreadable(description: "a chunk runs past the end") }
            switch type {
            case "IHDR":
                (width, height) = (be32(body), be32(body + 4))
                let (depth, color, interlace) = (data[body + 8], data[body + 9], data[body + 12])
                guard depth == 8, color == 2 || color == 6, interlace == 0 else {
                    throw Unreadable(description: "PNG with depth \(depth), colour type \(color), interlace \(interlace)")
                }
                channels = color == 6 ? 4 : 3
            case "IDAT": compressed += data[body..<body + length]
            default: break
            }
            offset = body + length + 4
        }
        let stride = width * channels
        var raw = [UInt8](repeating: 0, count: height * (stride + 1))
        var rawLength = uLongf(raw.count)
        let status = uncompress(&raw, &rawLength, compressed, uLong(compressed.count))
        guard status == Z_OK, Int(rawLength) == raw.count else { throw Unreadable(description: "IDAT does not inflate (\(status))") }
        var pixels = [UInt8](repeating: 0, count: height * stride)
        for row in 0..<height {
            let filter = raw[row * (stride + 1)]
            let line = row * (stride + 1) + 1
            for column in 0..<stride {
                let x = raw[line + column]
                let a = column >= channels ? pixels[row * stride + column - channels] : 0
                let b = row > 0 ? pixels[(row - 1) * stride + column] : 0
                let c = row > 0 && column >= channels ? pixels[(row - 1) * stride + column - channels] : 0
                let predicted: UInt8
                switch filter {
                case 0: predicted = 0
                case 1: predicted = a
                case 2: predicted = b
                case 3: predicted = UInt8((Int(a) + Int(b)) / 2)
                case 4:
                    let p = Int(a) + Int(b) - Int(c)
                    let (pa, pb, pc) = (abs(p - Int(a)), abs(p - Int(b)), abs(p - Int(c)))
                    predicted = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
                default: throw Unreadable(description: "unknown filter \(filter) in row \(row)")
                }
                pixels[row * stride + column] = x &+ predicted
            }
        }
        (self.width, self.height, self.channels, self.pixels) = (width, height, channels, pixels)
    }

    /// The rows in which at least `minimum` pixels have colour `rgb` (exactly).
    func rows(with rgb: (UInt8, UInt8, UInt8), minimum: Int = 1) -> [Int] {
        (0..<height).filter { row in
            var count = 0
            for column in 0..<width {
                let at = (row * width + column) * channels
                if pixels[at] == rgb.0, pixels[at + 1] == rgb.1, pixels[at + 2] == rgb.2 { count += 1 }
            }
            return count >= minimum
        }
    }

    /// How many different colours the image has (a blank page has one).
    var colourCount: Int {
        var seen = Set<UInt32>()
        for pixel in stride(from: 0, to: pixels.count, by: channels) {
            seen.insert(UInt32(pixels[pixel]) << 16 | UInt32(pixels[pixel + 1]) << 8 | UInt32(pixels[pixel + 2]))
        }
        return seen.count
    }
}
