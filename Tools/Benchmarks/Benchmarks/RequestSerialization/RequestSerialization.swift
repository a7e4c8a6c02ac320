import Benchmark
import Foundation
import SluiceCore
import SluiceRequestSerialization

/// Query-string serialization of a nested dictionary with 10,000 leaves: Sluice's AFNetworking
/// algorithm against Foundation's `URLComponents` / `URLQueryItem` path on the same pairs.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident],
        maxDuration: .seconds(5), maxIterations: 200)

    let parameters = QueryStringWorkload.parameters(leaves: 10_000)
    // Foundation gets the flattened pairs ready-made: only its encoding is timed.
    let items = QueryStringSerialization.pairs(from: parameters).map { URLQueryItem(name: $0.field, value: $0.value) }

    Benchmark("query string 10k leaves: Sluice") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(QueryStringSerialization.serialize(parameters))
        }
    }

    Benchmark("query string 10k leaves: URLComponents") { benchmark in
        for _ in benchmark.scaledIterations {
            var components = URLComponents()
            components.queryItems = items
            blackHole(components.percentEncodedQuery)
        }
    }
}

/// The workload: 100 users, each with a profile dictionary, tags and nested settings; 10,000 leaves
/// of mixed strings (some needing escapes), numbers and Booleans.
enum QueryStringWorkload {
    static func parameters(leaves: Int) -> Parameters {
        var users: [String: Parameters] = [:]
        var count = 0
        var index = 0
        while count < leaves {
            var settings: [String: Parameters] = [:]
            for setting in 0..<40 where count < leaves {
                settings["option\(setting)"] = setting.isMultiple(of: 3) ? .bool(true) : .string("value \(setting)/é&=")
                count += 1
            }
            var tags: [Parameters] = []
            for tag in 0..<50 where count < leaves {
                tags.append(.string("tag-\(tag) #\(index)"))
                count += 1
            }
            var profile: [String: Parameters] = ["settings": .dictionary(.init(uniqueKeysWithValues: settings.map { ($0.key, $0.value) }))]
            for field in 0..<10 where count < leaves {
                profile["field\(field)"] = .integer(field * index)
                count += 1
            }
            users["user\(index)"] = .dictionary(.init(uniqueKeysWithValues: [
                ("profile", Parameters.dictionary(.init(uniqueKeysWithValues: profile.map { ($0.key, $0.value) }))),
                ("tags", .array(tags)),
            ]))
            index += 1
        }
        return .dictionary(.init(uniqueKeysWithValues: users.map { ($0.key, $0.value) }))
    }
}
