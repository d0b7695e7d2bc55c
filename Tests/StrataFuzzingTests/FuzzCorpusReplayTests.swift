import Foundation
import StrataFuzzing
import Testing

/// Every committed seed (`Fuzz/Corpus/<target>/`) and crash reproducer
/// (`Fuzz/Regressions/<target>/`) run through its fuzz target: the checks libFuzzer runs on
/// millions of inputs (`scripts/fuzz`), run on these inputs in every `swift test`, without the
/// fuzzer's instrumentation.
@Suite struct FuzzCorpusReplayTests {
    static let fuzzFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    /// The committed inputs of a target, seeds first, each folder in name order.
    static func inputs(of target: String, in folder: String) -> [URL] {
        let directory = fuzzFolder.appendingPathComponent(folder).appendingPathComponent(target)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { directory.appendingPathComponent($0) }
    }

    @Test(arguments: FuzzTarget.all.map(\.name))
    func seedsAndReproducersHoldEveryCheck(_ name: String) throws {
        let target = try #require(FuzzTarget.named(name))
        let seeds = Self.inputs(of: name, in: "Corpus")
        #expect(!seeds.isEmpty, "the fuzz target \(name) has no seeds in Fuzz/Corpus/\(name)")
        for file in seeds + Self.inputs(of: name, in: "Regressions") {
            let data = try Data(contentsOf: file)
            do {
                let outcome = try target.run(data)
                // A seed Strata refuses would start the fuzzer in the shallows.
                #expect(outcome == .taken || !seeds.contains(file), "\(name): the seed \(file.lastPathComponent) is refused")
            } catch {
                Issue.record("\(name), \(file.lastPathComponent): \(error)")
            }
        }
    }

    /// Every corpus folder belongs to a target: a renamed target must not leave its seeds unread.
    @Test func everyCorpusFolderHasItsTarget() throws {
        for folder in ["Corpus", "Regressions"] {
            let url = Self.fuzzFolder.appendingPathComponent(folder)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
            for name in names where !name.hasPrefix(".") {
                #expect(FuzzTarget.named(name) != nil, "Fuzz/\(folder)/\(name) names no fuzz target")
            }
        }
    }
}
