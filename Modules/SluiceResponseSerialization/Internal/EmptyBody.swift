import Foundation
import SluiceCore

/// The rule AFNetworking's serializers share for responses that carry no value: a `204` or `205`, the
/// answer to a `HEAD`, or a body that is empty or only whitespace.
enum EmptyBody {
    static func isEmpty(request: HTTPRequest?, response: HTTPResponse, body: Data?) -> Bool {
        if HTTPResponseSerializer.isNoContent(request: request, response: response) { return true }
        return (body ?? Data()).allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
    }
}
