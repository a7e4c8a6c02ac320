import SluiceCore
import SluiceRequestSerialization
import Testing

@Suite("Query strings")
struct QueryStringSerializationTests {
    @Test("AFNetworking's reserved-character vector")
    func reservedCharacters() {
        #expect(QueryStringSerialization.percentEscape(" :#[]@!$&'()*+,;=/?") == "%20%3A%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D/?")
    }

    @Test("nested parameters")
    func nested() {
        let parameters: Parameters = ["b": [1, 2], "a": ["x": "y z"], "n": nil]
        #expect(QueryStringSerialization.serialize(parameters) == "a%5Bx%5D=y%20z&b%5B%5D=1&b%5B%5D=2&n")
    }
}
