import Foundation
import FuzzSupport
import SluiceCore
import SluiceResponseSerialization

/// Accepts any content type, so a body without one is read for what it is.
private let serializer = ImageResponseSerializer(validation: HTTPResponseSerializer(acceptableContentTypes: nil))
private let untyped = HTTPResponse(statusCode: 200)

/// libFuzzer's entry point: the image header reader behind `ImageResponseSerializer` (format and pixel
/// size from the first bytes of PNG, JPEG, GIF, BMP, WebP and ICO), on the body as it is, with no
/// `Content-Type` (every type accepted) and then with the `Content-Type` of the format it was read as.
///
/// A failure is a crash, a sanitizer report, a timeout, or one of these broken properties: only
/// `response.invalidImage` is thrown; a size read lies in the range the serializer documents for its
/// format; the body read with its own format's `Content-Type` gives the same answer.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = Data(bytes: data, count: size)
    let info: ImageInfo?
    do throws(SluiceError) {
        info = try serializer.serialize(request: nil, response: untyped, body: body)
    } catch {
        guard error.code == .invalidImage else { propertyFailed("threw \(error.code)") }
        return 0
    }
    guard let info else {
        guard body.isEmpty else { propertyFailed("no image and no error for \(body.count) bytes") }
        return 0
    }
    let (widths, heights): (ClosedRange<Int>, ClosedRange<Int>)
    switch info.format {
    case .png: (widths, heights) = (1...Int(Int32.max), 1...Int(Int32.max))
    case .gif, .jpeg: (widths, heights) = (1...65535, 1...65535)
    case .bmp: (widths, heights) = (1...Int(Int32.max), 1...Int(Int32.max))
    case .webp: (widths, heights) = (1...(1 << 24), 1...(1 << 24))
    case .ico: (widths, heights) = (1...256, 1...256)
    }
    guard widths.contains(info.width), heights.contains(info.height) else {
        propertyFailed("\(info.format) of \(info.width)×\(info.height)")
    }
    if info.format == .webp, info.width * info.height > Int(UInt32.max) { propertyFailed("WebP of \(info.width)×\(info.height)") }
    guard info.data == body else { propertyFailed("the image's bytes are not the body") }

    let mime = ["png": "image/png", "jpeg": "image/jpeg", "gif": "image/gif", "bmp": "image/bmp", "webp": "image/webp", "ico": "image/x-icon"][info.format.rawValue]!
    let typed = HTTPResponse(statusCode: 200, headers: ["Content-Type": mime])
    do throws(SluiceError) {
        let again = try serializer.serialize(request: nil, response: typed, body: body)
        guard again == info else { propertyFailed("\(mime) read as \(String(describing: again))") }
    } catch {
        propertyFailed("\(mime) refused: \(error.message)")
    }
    return 0
}
