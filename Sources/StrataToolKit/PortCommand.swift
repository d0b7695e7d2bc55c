import ArgumentParser
import Foundation
import Strata

/// `strata port [--fix] PATH…`: the spots in Core Data code from Apple's systems that Linux
/// needs changed.
struct PortCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "port",
        abstract: "List (and with --fix rewrite) what Core Data code from Apple's systems needs changed for Linux.",
        discussion: """
            Reads Swift files (folders recursively, skipping .build and hidden folders) with \
            Swift's own parser and lists every spot that does not compile, or compiles but \
            fails, on Linux: @NSManaged (-> @Managed), #keyPath (-> "key.path"), @objc and \
            @objc(Name), #selector (-> Selector("name:")), overrides declared in extensions \
            (awakeFromInsert, willSave, validateForInsert… must move into the class body), \
            `override init(entity:insertInto:)` (-> required), casts between NSFetchRequest \
            specialisations (`Todo.fetchRequest() as! NSFetchRequest<NSFetchRequestResult>` -> \
            `NSFetchRequest<NSFetchRequestResult>(entityName: "Todo")`, which assumes the entity \
            is named as its class), array literals where an NSSet or NSOrderedSet is expected \
            (-> NSSet(array: […])), NSExpression(forKeyPath: \\Todo.title), key-value \
            observing, undo by selector, and frameworks Linux lacks (SwiftUI, Combine…). \
            With --model, assignments of array literals to the model's to-many relationships \
            (`todo.tags = [home]`) are found too, and ordered ones become NSOrderedSet.

            --fix rewrites the mechanical spots in place, changing nothing else in the file \
            (formatting and comments are kept), and lists the spots left to change by hand.

            Exit status: 0 when nothing is left to change; 1 when spots remain (without \
            --fix: any spot; with --fix: spots it cannot fix), so CI can run it as a check.

            Examples:
              strata port Sources/
              strata port --fix --model Sources/App/Model.xcdatamodeld Sources/App
              strata port --json Sources/App/Persistence.swift
            """
    )

    @Argument(help: "Swift files or folders to scan.")
    var paths: [String]

    @Flag(help: "Rewrite the mechanical spots in place.")
    var fix = false

    @Option(help: "The app's model, to recognise array literals assigned to its to-many relationships.")
    var model: String?

    @Flag(help: "Print JSON for scripts.")
    var json = false

    /// The JSON form.
    struct Report: Encodable {
        var files: Int
        var findings: [PortFinding]
        var fixed: Int
        var remaining: Int
    }

    /// Usage errors (status 64) before any file is read.
    func validate() throws {
        guard !paths.isEmpty else { throw ValidationError("name at least one Swift file or folder") }
    }

    /// Scans every file, fixes when asked, prints the spots and exits 1 while some remain.
    func run() async throws {
        try ModelSupportOutput.run {
            var named = Set<String>()
            let files = try PortFiles.swiftFiles(in: paths).filter { named.insert($0).inserted }
            // Classes and to-many relationships from every file; a name some file declares with
            // another type (`var tags: [TagModel]`) is ambiguous and left to the model, if given.
            var context = PortContext()
            for file in files {
                guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { continue }
                var declared = PortScanner.declarations(in: text)
                declared.classFiles = Dictionary(uniqueKeysWithValues: declared.classes.map { ($0, [file]) })
                context.merge(declared)
            }
            context.relationships = context.relationships.filter { !context.otherProperties.contains($0.key) }
            if let model {
                context.relationships.merge(try Self.toManyRelationships(of: model)) { $0 || $1 }
            }
            // Overrides that move out of extensions into their classes: the classes' files are
            // written first, so that no member leaves one file before it is in the other.
            var moves: [String: [PortMove]] = [:]
            if fix {
                for file in files {
                    guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { continue }
                    for move in PortScanner.scan(text, file: file, context: context).compactMap(\.move) {
                        moves[move.file, default: []].append(move)
                    }
                }
            }
            var findingsByFile: [String: [PortFinding]] = [:]
            for file in files.filter({ moves[$0] != nil }) + files.filter({ moves[$0] == nil })
            where findingsByFile[file] == nil {
                findingsByFile[file] = try PortFileFixer(path: file, context: context, insertions: moves[file] ?? []).run(
                    fix: fix)
            }
            let findings = files.flatMap { findingsByFile[$0] ?? [] }
            let fixed = findings.filter(\.fixed).count
            let report = Report(files: files.count, findings: findings, fixed: fixed, remaining: findings.count - fixed)
            if json {
                try ModelSupportOutput.printJSON(report)
            } else {
                for finding in findings { print(finding.text) }
                let fixable = findings.filter { !$0.fixed && $0.replacement != nil }.count
                var summary =
                    "\(files.count) file\(files.count == 1 ? "" : "s"), \(findings.count) spot\(findings.count == 1 ? "" : "s")"
                if fix { summary += ", \(fixed) fixed" } else if fixable > 0 { summary += ", \(fixable) fixable with --fix" }
                summary += ", \(report.remaining - (fix ? 0 : fixable)) to change by hand"
                ModelSupportOutput.printToStandardError(summary)
            }
            if report.remaining > 0 { throw ExitCode.failure }
        }
    }

    /// The to-many relationships of the model's entities: name → ordered.
    private static func toManyRelationships(of path: String) throws -> [String: Bool] {
        let source = try ModelSource.load(path, version: nil)
        var relationships: [String: Bool] = [:]
        for entity in source.model.entities {
            for case let relationship as NSRelationshipDescription in entity.declaredProperties where relationship.isToMany {
                relationships[relationship.name] = (relationships[relationship.name] ?? false) || relationship.isOrdered
            }
        }
        return relationships
    }
}
