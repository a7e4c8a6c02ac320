import Foundation
import SluiceCore

/// An image's format and pixel size, read from its header, with its bytes.
public struct ImageInfo: Sendable, Hashable {
    /// An image format Sluice recognises by signature.
    public enum Format: String, Sendable, Hashable, CaseIterable {
        /// PNG
        case png
        /// JPEG
        case jpeg
        /// GIF
        case gif
        /// BMP
        case bmp
        /// WebP
        case webp
        /// ICO (Windows icon)
        case ico
    }

    /// The format.
    public let format: Format
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// The image bytes as received.
    public let data: Data
}

/// Validates an image response and reads its format and dimensions from the header, without decoding
/// pixels. Accepts AFNetworking's image types plus WebP; a body whose signature does not match its
/// `Content-Type`, or whose header gives a size its format does not allow, is
/// ``SluiceError/Code/invalidImage``.
///
/// The sizes allowed: PNG 1 to 2³¹ − 1 each way; GIF and JPEG 1 to 65535 (a JPEG whose height is left to
/// a DNL marker is refused); BMP a width of 1 to 2³¹ − 1 and a height of 1 to 2³¹ − 1, negative for a
/// top-down bitmap (reported as its magnitude), or 1 to 65535 each way in an OS/2 `BITMAPCOREHEADER`;
/// WebP 1 to 16383 (lossy), 1 to 16384 (lossless), or 1 to 2²⁴ with at most 2³² − 1 pixels (extended);
/// ICO 1 to 256 (a stored 0 means 256).
public struct ImageResponseSerializer: ResponseSerializer {
    /// The validation rules.
    public var validation: HTTPResponseSerializer

    /// AFNetworking's image types, plus `image/webp`.
    public static let defaultContentTypes = [
        "image/tiff", "image/jpeg", "image/gif", "image/png", "image/ico", "image/x-icon", "image/bmp",
        "image/x-bmp", "image/x-xbitmap", "image/x-win-bitmap", "image/webp",
    ].compactMap { MediaType($0) }

    /// Creates a serializer accepting ``defaultContentTypes`` and 200–299.
    public init(validation: HTTPResponseSerializer = HTTPResponseSerializer(acceptableContentTypes: ImageResponseSerializer.defaultContentTypes)) {
        self.validation = validation
    }

    /// The acceptable content types.
    public var acceptableMediaTypes: [MediaType]? { validation.acceptableContentTypes }

    /// Validates and reads the header; `nil` for an empty body.
    ///
    /// - Throws: The validation errors, or ``SluiceError/Code/invalidImage`` for a body that is no
    ///   readable image, one whose format does not match `Content-Type`, or one whose header gives a
    ///   size outside its format's range.
    public func serialize(request: HTTPRequest?, response: HTTPResponse, body: Data?) throws(SluiceError) -> ImageInfo? {
        try validation.validate(request: request, response: response, body: body)
        guard let body, !body.isEmpty else { return nil }
        let format: ImageInfo.Format, width: Int, height: Int
        do {
            (format, width, height) = try ImageHeader.read(Array(body.prefix(64 * 1024)))
        } catch {
            throw SluiceError(.invalidImage, error.message, request: request, response: response, body: body)
        }
        if let type = response.mimeType, !ImageHeader.mimeTypes(for: format).contains(type) {
            throw SluiceError(.invalidImage, "the body is \(format.rawValue) but Content-Type says \(type)",
                              request: request, response: response, body: body)
        }
        return ImageInfo(format: format, width: width, height: height, data: body)
    }
}
