import Foundation
import Strata
import StrataConcurrencyHarness

// The concurrency harness's second process (RELIABILITY.md): it opens the store the test's
// writers save into, with a coordinator of its own, and saves into it with one writer per
// name given, each on a thread of its own, at the same time as the test's. It prints the
// writers' reports as JSON on standard output.
//
//   strata-concurrency-writer <store> <merge policy type 0–4> <saves> <seed> <writer name>…

let arguments = CommandLine.arguments
guard arguments.count >= 6, let policyType = UInt(arguments[2]).flatMap(NSMergePolicyType.init(rawValue:)),
    let saves = Int(arguments[3]), let seed = UInt64(arguments[4])
else {
    FileHandle.standardError.write(
        Data("usage: strata-concurrency-writer <store> <merge policy 0-4> <saves> <seed> <writer>...\n".utf8))
    exit(2)
}
do {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ConcurrencyHarness.model())
    _ = try coordinator.addPersistentStore(
        ofType: NSSQLiteStoreType, configurationName: nil, at: URL(fileURLWithPath: arguments[1]),
        options: ConcurrencyHarness.storeOptions)
    let writers = arguments[5...].enumerated().map { index, name in
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        context.mergePolicy = NSMergePolicy(merge: policyType)
        return ConcurrencyWriter(name: name, context: context, seed: seed &+ UInt64(index))
    }
    DispatchQueue.concurrentPerform(iterations: writers.count) { index in
        let writer = writers[index]
        for _ in 0..<saves { writer.context.performAndWait { writer.saveOnce() } }
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    FileHandle.standardOutput.write(try encoder.encode(writers.map(\.report)))
} catch {
    FileHandle.standardError.write(Data("strata-concurrency-writer: \(error)\n".utf8))
    exit(1)
}
