import Foundation
import Testing

@testable import Strata

/// Feeds the reader thousands of damaged model files. Whatever the damage, loading must
/// give a model or a `ModelError`, never a crash; and a model that loads must survive a
/// write → read round trip unchanged.
@Suite("Xcode model fuzzing") struct XcodeModelFuzzTests {
    /// SplitMix64: a small seeded generator, so that every run mutates the same way.
    private struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    private static let corpusSeeds = [
        "alemar11__CoreDataPlus__SampleModel/SampleModel2.xcdatamodel/contents",
        "SwiftGen__SwiftGen__Model/Model 2.xcdatamodel/contents",
        "phimage__MomXML__Model/Model.xcdatamodel/contents",
        "objcio__core-data__Moody_3/Moody.xcdatamodel/contents",
        "delawaremathguy__CoreDataCloudKitShare__CoreDataCloudKitShare/CoreDataCloudKitShare.xcdatamodel/contents",
        "3lvis__Sync__Patients/Demo.xcdatamodel/contents",
    ]

    /// The files to damage: a few corpus files when the corpus is present, and the
    /// test's own fixture always.
    private func seeds() -> [[UInt8]] {
        var seeds = [Array(XcodeModelFixtures.everything.utf8)]
        if TestCorpus.isAvailable {
            for path in Self.corpusSeeds {
                if let data = FileManager.default.contents(atPath: TestCorpus.models.appendingPathComponent(path).path) {
                    seeds.append(Array(data))
                }
            }
        }
        return seeds
    }

    /// Values that upset readers: wrong types, enumerations, numbers and names.
    private static let hostileValues = [
        "", "YES", "NO", "-1", "0", "99999999999999999999", "Integer 128", "Composite", "Cascade", "Undefined",
        "Book", "Chapter", "Person", "Item", "&amp;", "$FETCH_SOURCE", "now()", "a.@count", "RTree", "descending",
    ]

    private func mutate(_ bytes: [UInt8], using generator: inout SeededGenerator) -> [UInt8] {
        guard !bytes.isEmpty else { return bytes }
        var bytes = bytes
        switch Int.random(in: 0..<7, using: &generator) {
        case 0:
            bytes.removeLast(Int.random(in: 0..<bytes.count, using: &generator))
        case 1:
            let index = Int.random(in: 0..<bytes.count, using: &generator)
            bytes[index] ^= UInt8.random(in: 1...255, using: &generator)
        case 2:
            var lines = lines(of: bytes)
            let index = Int.random(in: 0..<lines.count, using: &generator)
            lines.insert(lines[index], at: index)
            bytes = Array(lines.joined(separator: [10]))
        case 3:
            var lines = lines(of: bytes)
            lines.remove(at: Int.random(in: 0..<lines.count, using: &generator))
            bytes = Array(lines.joined(separator: [10]))
        case 4:
            var lines = lines(of: bytes)
            lines.swapAt(
                Int.random(in: 0..<lines.count, using: &generator), Int.random(in: 0..<lines.count, using: &generator))
            bytes = Array(lines.joined(separator: [10]))
        default:
            bytes = mutateAttributeValues(bytes, using: &generator)
        }
        return bytes
    }

    private func lines(of bytes: [UInt8]) -> [[UInt8]] {
        bytes.split(separator: 10, omittingEmptySubsequences: false).map(Array.init)
    }

    /// Swaps two attribute values of the file, or replaces one with a hostile value.
    private func mutateAttributeValues(_ bytes: [UInt8], using generator: inout SeededGenerator) -> [UInt8] {
        let text = String(decoding: bytes, as: UTF8.self)
        let ranges = text.ranges(of: /="[^"]*"/).map {
            text.index(after: text.index(after: $0.lowerBound))..<text.index(before: $0.upperBound)
        }
        guard ranges.count >= 2 else { return bytes }
        let first = ranges[Int.random(in: 0..<ranges.count, using: &generator)]
        var result = text
        if Bool.random(using: &generator) {
            let second = ranges[Int.random(in: 0..<ranges.count, using: &generator)]
            guard first != second else { return bytes }
            let (low, high) = first.lowerBound < second.lowerBound ? (first, second) : (second, first)
            guard low.upperBound <= high.lowerBound else { return bytes }
            let lowText = String(text[low])
            let highText = String(text[high])
            result.replaceSubrange(high, with: lowText)
            result.replaceSubrange(low, with: highText)
        } else {
            result.replaceSubrange(first, with: Self.hostileValues.randomElement(using: &generator) ?? "")
        }
        return Array(result.utf8)
    }

    @Test func damagedFilesNeverCrashTheReader() {
        var generator = SeededGenerator(state: 0x5354_5241_5441)
        let seeds = seeds()
        var loaded = 0
        var rejected = 0
        for iteration in 0..<3000 {
            var bytes = seeds[iteration % seeds.count]
            for _ in 0...Int.random(in: 0..<3, using: &generator) {
                bytes = mutate(bytes, using: &generator)
            }
            let model: NSManagedObjectModel
            do {
                model = try NSManagedObjectModel.load(xml: Data(bytes))
            } catch {
                rejected += 1
                #expect(!error.message.isEmpty)
                continue
            }
            loaded += 1
            let written = model.xcodeModelContents()
            do {
                let again = try NSManagedObjectModel.load(xml: written)
                #expect(again.isEqual(model), "iteration \(iteration): the round trip changed the model")
                #expect(again.xcodeModelContents() == written, "iteration \(iteration): writing is not a fixed point")
            } catch {
                Issue.record("iteration \(iteration): the written model does not load: \(error)")
            }
        }
        print("fuzzing: \(loaded) damaged files loaded, \(rejected) rejected with a ModelError")
        #expect(loaded + rejected == 3000)
        #expect(loaded > 100, "mutations should leave many files loadable")
        #expect(rejected > 100, "mutations should break many files")
    }
}
