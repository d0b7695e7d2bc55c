import Foundation
import Testing

@testable import Strata

/// Many generated predicates over generated data: the answer of the SQLite store (the
/// predicate compiled to SQL), of the in-memory store, and of evaluating the predicate on
/// each object in memory must be the same.
@Suite struct PredicateDifferentialTests {
    /// A small deterministic generator (SplitMix64), so that a failure can be replayed.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func int(_ range: ClosedRange<Int>) -> Int {
            range.lowerBound + Int(next() % UInt64(range.count))
        }
        mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }
        mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
    }

    static let words: [String?] = [
        "alpha", "Álpha", "ALPHA", "beta", "Béta", "gamma", "gámma", "delta", "straße", "STRASSE", "", nil,
    ]

    static func model() -> NSManagedObjectModel {
        NSManagedObjectModel {
            Entity("Sample") {
                Attribute("name", .stringAttributeType)
                Attribute("score", .integer32AttributeType, optional: false, defaultValue: Int32(0))
                Attribute("ratio", .doubleAttributeType)
                Attribute("flag", .booleanAttributeType, optional: false, defaultValue: false)
                Attribute("when", .dateAttributeType)
                Relationship("owner", to: "Keeper", inverse: "samples")
                Relationship("marks", to: "Mark", inverse: "samples", toMany: true)
            }
            Entity("Keeper") {
                Attribute("title", .stringAttributeType)
                Relationship("samples", to: "Sample", inverse: "owner", toMany: true)
            }
            Entity("Mark") {
                Attribute("label", .stringAttributeType)
                Attribute("weight", .integer16AttributeType, optional: false, defaultValue: Int16(0))
                Relationship("samples", to: "Sample", inverse: "marks", toMany: true)
            }
        }
    }

    static func fill(_ context: NSManagedObjectContext, seed: UInt64) throws {
        var random = Generator(state: seed)
        let keepers = (0..<4).map { _ -> NSManagedObject in
            let keeper = NSEntityDescription.insertNewObject(forEntityName: "Keeper", into: context)
            keeper.setValue(random.pick(words), forKey: "title")
            return keeper
        }
        let marks = (0..<6).map { index -> NSManagedObject in
            let mark = NSEntityDescription.insertNewObject(forEntityName: "Mark", into: context)
            mark.setValue(random.pick(words), forKey: "label")
            mark.setValue(Int16(index * 3), forKey: "weight")
            return mark
        }
        for _ in 0..<60 {
            let sample = NSEntityDescription.insertNewObject(forEntityName: "Sample", into: context)
            sample.setValue(random.pick(words), forKey: "name")
            sample.setValue(Int32(random.int(-5...20)), forKey: "score")
            sample.setValue(random.chance(20) ? nil : Double(random.int(0...100)) / 8, forKey: "ratio")
            sample.setValue(random.chance(50), forKey: "flag")
            sample.setValue(
                random.chance(15) ? nil : Date(timeIntervalSinceReferenceDate: Double(random.int(0...10)) * 1000), forKey: "when")
            if random.chance(80) { sample.setValue(random.pick(keepers), forKey: "owner") }
            for mark in marks where random.chance(30) { sample.mutableSetValue(forKey: "marks").add(mark) }
        }
        try context.save()
    }

    /// A random predicate as a format string with its arguments.
    static func predicate(_ random: inout Generator, depth: Int = 0) -> (String, [Any?]) {
        if depth < 2 && random.chance(35) {
            let (left, leftArguments) = predicate(&random, depth: depth + 1)
            let (right, rightArguments) = predicate(&random, depth: depth + 1)
            switch random.int(0...2) {
            case 0: return ("(\(left)) AND (\(right))", leftArguments + rightArguments)
            case 1: return ("(\(left)) OR (\(right))", leftArguments + rightArguments)
            default: return ("NOT (\(left))", leftArguments)
            }
        }
        let options = random.pick(["", "[c]", "[d]", "[cd]"])
        let word: Any? = random.pick(words.compactMap { $0 }.map { String($0.prefix(random.int(1...4))) } + ["lph", "ta"])
        switch random.int(0...11) {
        case 0: return ("name \(random.pick(["==", "!=", "BEGINSWITH", "ENDSWITH", "CONTAINS"]))\(options) %@", [word])
        case 1: return ("name LIKE\(options) %@", [random.pick(["*a*", "?lpha", "b*", "*SS*", "a?p*", "*"])])
        case 2: return ("score \(random.pick(["==", "!=", "<", "<=", ">", ">="])) %d", [random.int(-6...21)])
        case 3: return ("ratio \(random.pick(["<", ">=", "==", "!="])) %@", [Double(random.int(0...100)) / 8])
        case 4: return ("flag == %@", [random.chance(50)])
        case 5:
            return (
                "when \(random.pick(["<", ">", "=="])) %@",
                [Date(timeIntervalSinceReferenceDate: Double(random.int(0...10)) * 1000)]
            )
        case 6: return ("score BETWEEN {%d, %d}", [random.int(-5...5), random.int(5...20)])
        case 7: return ("name IN\(options) %@", [[random.pick(words.compactMap { $0 }), random.pick(words.compactMap { $0 })]])
        case 8: return ("owner.title \(random.pick(["==", "BEGINSWITH", "CONTAINS"]))\(options) %@", [word])
        case 9: return ("\(random.pick(["ANY", "NONE"])) marks.label \(random.pick(["==", "CONTAINS"]))\(options) %@", [word])
        case 10: return ("marks.@count \(random.pick(["==", ">", "<="])) %d", [random.int(0...4)])
        default:
            return ("\(random.pick(["name == nil", "ratio != nil", "owner == nil", "when == nil", "ALL marks.weight > 2"]))", [])
        }
    }

    @Test func sqlInMemoryStoreAndEvaluationAgree() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-differential-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = Self.model()
        var contexts: [NSManagedObjectContext] = []
        for type in [NSSQLiteStoreType, NSInMemoryStoreType] {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(
                ofType: type, configurationName: nil, at: folder.appendingPathComponent("d.\(type)"))
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait { try Self.fill(context, seed: 42) }
            contexts.append(context)
        }
        var random = Generator(state: 7)
        var compared = 0
        var nonEmpty = 0
        for _ in 0..<400 {
            let (format, arguments) = Self.predicate(&random)
            let predicate = NSPredicate(format: format, argumentArray: arguments.map { $0 ?? NSNull() })
            var answers: [[Int64]] = []
            for context in contexts {
                try context.performAndWait {
                    let request = NSFetchRequest<NSManagedObject>(entityName: "Sample")
                    request.predicate = predicate
                    answers.append(try context.fetch(request).map(\.objectID.primaryKey).sorted())
                    let all = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Sample"))
                    answers.append(all.filter { predicate.evaluate(with: $0) }.map(\.objectID.primaryKey).sorted())
                }
            }
            #expect(answers[0] == answers[1], "SQL vs memory: \(predicate.predicateFormat)")
            #expect(answers[2] == answers[1], "in-memory store vs memory: \(predicate.predicateFormat)")
            #expect(answers[3] == answers[1], "memory on both stores: \(predicate.predicateFormat)")
            compared += 1
            if !answers[1].isEmpty && answers[1].count < 60 { nonEmpty += 1 }
        }
        print("predicate differential: \(compared) predicates, \(nonEmpty) with a partial answer, over 60 objects")
        #expect(nonEmpty > 100, "the generator makes predicates that tell objects apart")
    }
}
