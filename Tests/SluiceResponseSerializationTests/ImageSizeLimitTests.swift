import Foundation
import SluiceCore
import SluiceResponseSerialization
import Testing

/// One image header and what the serializer must make of it: a size, or `nil` for `invalidImage`.
struct ImageSizeCase: Sendable, CustomTestStringConvertible {
    let label: String
    let contentType: String
    let bytes: [UInt8]
    let expected: (width: Int, height: Int)?
    var testDescription: String { label }
}

/// Headers built field by field, so each case says exactly which size it claims.
enum ImageHeaders {
    static func be32(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
    static func le32(_ value: UInt32) -> [UInt8] { [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: value >> $0) } }
    static func le16(_ value: UInt16) -> [UInt8] { [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)] }
    static func be16(_ value: UInt16) -> [UInt8] { [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)] }

    /// Signature, then the IHDR chunk (length 13, 8-bit RGBA, CRC not checked).
    static func png(_ width: UInt32, _ height: UInt32) -> [UInt8] {
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + Array("IHDR".utf8) + be32(width) + be32(height)
            + [8, 6, 0, 0, 0] + [0, 0, 0, 0]
    }

    /// GIF89a with its logical screen descriptor.
    static func gif(_ width: UInt16, _ height: UInt16) -> [UInt8] {
        Array("GIF89a".utf8) + le16(width) + le16(height) + [0, 0, 0] + [UInt8](repeating: 0, count: 8)
    }

    /// A BITMAPINFOHEADER (40 bytes): width and height as the 32 bits given (signed in the format).
    static func bmp(_ width: UInt32, _ height: UInt32) -> [UInt8] {
        Array("BM".utf8) + le32(0) + le32(0) + le32(54) + le32(40) + le32(width) + le32(height) + le16(1) + le16(24)
            + [UInt8](repeating: 0, count: 24)
    }

    /// An OS/2 BITMAPCOREHEADER (12 bytes): unsigned 16-bit width and height.
    static func bmpCore(_ width: UInt16, _ height: UInt16) -> [UInt8] {
        Array("BM".utf8) + le32(0) + le32(0) + le32(26) + le32(12) + le16(width) + le16(height) + le16(1) + le16(24)
    }

    /// SOI, an APP0 (JFIF) segment, then a baseline SOF0 with the size.
    static func jpeg(_ width: UInt16, _ height: UInt16) -> [UInt8] {
        [0xFF, 0xD8] + [0xFF, 0xE0] + be16(16) + Array("JFIF".utf8) + [0, 1, 1, 0] + be16(1) + be16(1) + [0, 0]
            + [0xFF, 0xC0] + be16(17) + [8] + be16(height) + be16(width) + [3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
    }

    static func riff(_ chunk: String, _ payload: [UInt8]) -> [UInt8] {
        Array("RIFF".utf8) + le32(UInt32(12 + payload.count)) + Array("WEBP".utf8) + Array(chunk.utf8)
            + le32(UInt32(payload.count)) + payload
    }

    /// Lossy WebP: a key frame's tag, start code and 14-bit sizes (the top 2 bits of each are a scale).
    static func webpLossy(_ width: UInt16, _ height: UInt16) -> [UInt8] {
        riff("VP8 ", [0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A] + le16(width) + le16(height) + [0, 0])
    }

    /// Lossless WebP: signature 0x2F, then 14 bits of width − 1 and 14 of height − 1.
    static func webpLossless(widthMinusOne: UInt32, heightMinusOne: UInt32) -> [UInt8] {
        riff("VP8L", [0x2F] + le32(widthMinusOne | heightMinusOne << 14) + [0, 0, 0])
    }

    /// Extended WebP: flags, reserved, then 24 bits each of canvas width − 1 and height − 1.
    static func webpExtended(widthMinusOne: UInt32, heightMinusOne: UInt32) -> [UInt8] {
        riff("VP8X", [0, 0, 0, 0] + Array(le32(widthMinusOne).prefix(3)) + Array(le32(heightMinusOne).prefix(3)))
    }

    /// An icon directory with `count` entries, the first `width`×`height` (0 means 256).
    static func ico(_ width: UInt8, _ height: UInt8, count: UInt16 = 1) -> [UInt8] {
        [0, 0, 1, 0] + le16(count) + [width, height, 0, 0] + le16(1) + le16(32) + le32(40) + le32(22)
    }
}

@Suite("Image sizes each format allows")
struct ImageSizeLimitTests {
    static let max31 = UInt32(Int32.max)

    static let cases: [ImageSizeCase] = [
        // PNG: 1 to 2^31 - 1 each way.
        .init(label: "PNG 1x1", contentType: "image/png", bytes: ImageHeaders.png(1, 1), expected: (1, 1)),
        .init(label: "PNG max 2^31-1 square", contentType: "image/png", bytes: ImageHeaders.png(max31, max31), expected: (Int(Int32.max), Int(Int32.max))),
        .init(label: "PNG width 2^31", contentType: "image/png", bytes: ImageHeaders.png(max31 + 1, 1), expected: nil),
        .init(label: "PNG height 2^31", contentType: "image/png", bytes: ImageHeaders.png(1, max31 + 1), expected: nil),
        .init(label: "PNG 0x80000000 by 0xFFFFFFFF", contentType: "image/png", bytes: ImageHeaders.png(0x8000_0000, 0xFFFF_FFFF), expected: nil),
        .init(label: "PNG width 0", contentType: "image/png", bytes: ImageHeaders.png(0, 1), expected: nil),
        .init(label: "PNG height 0", contentType: "image/png", bytes: ImageHeaders.png(1, 0), expected: nil),
        .init(label: "PNG without IHDR first", contentType: "image/png",
              bytes: Array(ImageHeaders.png(1, 1).prefix(12)) + Array("IDAT".utf8) + Array(ImageHeaders.png(1, 1).dropFirst(16)), expected: nil),

        // GIF: unsigned 16 bits (65535 is the most the field holds), zero refused.
        .init(label: "GIF max 65535 square", contentType: "image/gif", bytes: ImageHeaders.gif(65535, 65535), expected: (65535, 65535)),
        .init(label: "GIF width 0", contentType: "image/gif", bytes: ImageHeaders.gif(0, 1), expected: nil),
        .init(label: "GIF height 0", contentType: "image/gif", bytes: ImageHeaders.gif(1, 0), expected: nil),

        // BMP (BITMAPINFOHEADER): signed 32 bits; width > 0; a negative height is a top-down image.
        .init(label: "BMP max 2^31-1 square", contentType: "image/bmp", bytes: ImageHeaders.bmp(max31, max31), expected: (Int(Int32.max), Int(Int32.max))),
        .init(label: "BMP width FF FF FF FF (-1)", contentType: "image/bmp", bytes: ImageHeaders.bmp(0xFFFF_FFFF, 1), expected: nil),
        .init(label: "BMP width 2^31 (Int32.min)", contentType: "image/bmp", bytes: ImageHeaders.bmp(max31 + 1, 1), expected: nil),
        .init(label: "BMP width 0", contentType: "image/bmp", bytes: ImageHeaders.bmp(0, 1), expected: nil),
        .init(label: "BMP height 0", contentType: "image/bmp", bytes: ImageHeaders.bmp(1, 0), expected: nil),
        .init(label: "BMP height -480 (top-down)", contentType: "image/bmp", bytes: ImageHeaders.bmp(640, UInt32(bitPattern: -480)), expected: (640, 480)),
        .init(label: "BMP height -(2^31-1) (top-down max)", contentType: "image/bmp", bytes: ImageHeaders.bmp(1, UInt32(bitPattern: -Int32.max)), expected: (1, Int(Int32.max))),
        .init(label: "BMP height Int32.min", contentType: "image/bmp", bytes: ImageHeaders.bmp(1, max31 + 1), expected: nil),
        .init(label: "BMP unknown header size 0", contentType: "image/bmp",
              bytes: Array(ImageHeaders.bmp(1, 1).prefix(14)) + ImageHeaders.le32(0) + Array(ImageHeaders.bmp(1, 1).dropFirst(18)), expected: nil),

        // BMP (OS/2 BITMAPCOREHEADER): unsigned 16 bits, zero refused.
        .init(label: "BMP core max 65535 square", contentType: "image/bmp", bytes: ImageHeaders.bmpCore(65535, 65535), expected: (65535, 65535)),
        .init(label: "BMP core width 0", contentType: "image/bmp", bytes: ImageHeaders.bmpCore(0, 1), expected: nil),
        .init(label: "BMP core height 0", contentType: "image/bmp", bytes: ImageHeaders.bmpCore(1, 0), expected: nil),

        // JPEG: width 1 to 65535; height 0 means "given later by a DNL marker", which is not read.
        .init(label: "JPEG max 65535 square", contentType: "image/jpeg", bytes: ImageHeaders.jpeg(65535, 65535), expected: (65535, 65535)),
        .init(label: "JPEG width 0", contentType: "image/jpeg", bytes: ImageHeaders.jpeg(0, 1), expected: nil),
        .init(label: "JPEG height 0 (DNL)", contentType: "image/jpeg", bytes: ImageHeaders.jpeg(1, 0), expected: nil),

        // WebP lossy: 14 bits, 1 to 16383; the scale bits are not part of the size.
        .init(label: "WebP lossy max 16383 square", contentType: "image/webp", bytes: ImageHeaders.webpLossy(16383, 16383), expected: (16383, 16383)),
        .init(label: "WebP lossy with scale bits", contentType: "image/webp", bytes: ImageHeaders.webpLossy(0xC001, 0x4002), expected: (1, 2)),
        .init(label: "WebP lossy width 0", contentType: "image/webp", bytes: ImageHeaders.webpLossy(0, 1), expected: nil),
        .init(label: "WebP lossy height 0 (scale bits only)", contentType: "image/webp", bytes: ImageHeaders.webpLossy(1, 0xC000), expected: nil),
        .init(label: "WebP lossy without start code", contentType: "image/webp",
              bytes: ImageHeaders.riff("VP8 ", [0x10, 0x02, 0x00, 0, 0, 0] + ImageHeaders.le16(1) + ImageHeaders.le16(1) + [0, 0]), expected: nil),

        // WebP lossless: 14 bits of size − 1, 1 to 16384 (every value is valid).
        .init(label: "WebP lossless min 1x1", contentType: "image/webp", bytes: ImageHeaders.webpLossless(widthMinusOne: 0, heightMinusOne: 0), expected: (1, 1)),
        .init(label: "WebP lossless max 16384 square", contentType: "image/webp",
              bytes: ImageHeaders.webpLossless(widthMinusOne: 16383, heightMinusOne: 16383), expected: (16384, 16384)),

        // WebP extended: 24 bits of size − 1, and width × height at most 2^32 − 1.
        .init(label: "WebP extended 2^24 by 1", contentType: "image/webp",
              bytes: ImageHeaders.webpExtended(widthMinusOne: 0xFF_FFFF, heightMinusOne: 0), expected: (1 << 24, 1)),
        .init(label: "WebP extended 65536 by 65535 (area 2^32 - 65536)", contentType: "image/webp",
              bytes: ImageHeaders.webpExtended(widthMinusOne: 65535, heightMinusOne: 65534), expected: (65536, 65535)),
        .init(label: "WebP extended 65536 square (area 2^32)", contentType: "image/webp",
              bytes: ImageHeaders.webpExtended(widthMinusOne: 65535, heightMinusOne: 65535), expected: nil),
        .init(label: "WebP extended 2^24 square", contentType: "image/webp",
              bytes: ImageHeaders.webpExtended(widthMinusOne: 0xFF_FFFF, heightMinusOne: 0xFF_FFFF), expected: nil),

        // ICO: one byte each, 0 means 256; a directory with no entry has no size.
        .init(label: "ICO 0 means 256", contentType: "image/x-icon", bytes: ImageHeaders.ico(0, 0), expected: (256, 256)),
        .init(label: "ICO 1x1", contentType: "image/x-icon", bytes: ImageHeaders.ico(1, 1), expected: (1, 1)),
        .init(label: "ICO 255x255", contentType: "image/x-icon", bytes: ImageHeaders.ico(255, 255), expected: (255, 255)),
        .init(label: "ICO with no directory entry", contentType: "image/x-icon", bytes: ImageHeaders.ico(16, 16, count: 0), expected: nil),
    ]

    @Test("sizes inside a format's range are read; outside it, invalidImage", arguments: cases)
    func limits(case: ImageSizeCase) throws {
        let response = HTTPResponse(statusCode: 200, headers: ["Content-Type": `case`.contentType])
        if let expected = `case`.expected {
            let info = try #require(try ImageResponseSerializer().serialize(request: nil, response: response, body: Data(`case`.bytes)))
            #expect(info.width == expected.width)
            #expect(info.height == expected.height)
        } else {
            let error = #expect(throws: SluiceError.self) {
                try ImageResponseSerializer().serialize(request: nil, response: response, body: Data(`case`.bytes))
            }
            #expect(error?.code == .invalidImage)
            #expect(error?.body == Data(`case`.bytes))
        }
    }

    @Test("the error for an impossible size names the format and the size it claimed")
    func message() {
        let response = HTTPResponse(statusCode: 200, headers: ["Content-Type": "image/png"])
        let error = #expect(throws: SluiceError.self) {
            try ImageResponseSerializer().serialize(request: nil, response: response, body: Data(ImageHeaders.png(0x8000_0000, 0xFFFF_FFFF)))
        }
        #expect(error?.message.contains("PNG") == true)
        #expect(error?.message.contains("2147483648") == true)
        #expect(error?.message.contains("4294967295") == true)
    }
}
