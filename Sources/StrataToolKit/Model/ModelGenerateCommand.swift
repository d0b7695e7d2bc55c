import ArgumentParser
import Foundation
import Strata
import StrataCodegen

/// `strata model generate MODEL`: the entity classes Strata's build plugin generates for a
/// model, from the same generator (`StrataCodegen.ClassGenerator`) the plugin's
/// `strata-codegen` runs, so the text is the same byte for byte.
struct ModelGenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write the entity classes the build plugin generates for a model.",
        discussion: """
            Writes what StrataModelPlugin writes at build time for the model's entities whose \
            codegen is "Class Definition" or "Category/Extension": @Managed properties, \
            fetchRequest(), to-many accessors. Without --output the source goes to standard \
            output; with --output DIR it is written to DIR/<Model>+CoreDataGenerated.swift, the \
            plugin's file name. Use it to switch an entity to "Manual/None" and keep the code, \
            or to read what the plugin generates.

            Examples:
              strata model generate Todos.xcdatamodeld
              strata model generate Todos.xcdatamodeld --output Sources/App/Model --module-name App
              strata model generate Todos.xcdatamodeld --access internal
            """
    )

    @OptionGroup var arguments: ModelArguments

    @Option(help: "A folder to write <Model>+CoreDataGenerated.swift into (default: standard output).")
    var output: String?

    @Option(help: "The module the file is compiled into (class names qualified with it are used unqualified).")
    var moduleName: String?

    @Option(help: "The access level of the generated declarations: public (as the plugin and Xcode) or internal.")
    var access: GeneratedAccess = .public

    /// Generates the classes and writes them to standard output or the folder given.
    func run() throws {
        try ModelSupportOutput.run {
            let source = try ModelSource.load(arguments.model, version: arguments.version)
            for problem in source.problems {
                ModelSupportOutput.printToStandardError("\(ModelSource.location(of: problem))warning: \(problem.message)")
            }
            let url = URL(fileURLWithPath: arguments.model)
            let generator = ClassGenerator(model: source.model, moduleName: moduleName, sourceFileName: url.lastPathComponent)
            var text = try generator.generate()
            if access == .internal { text = AccessLevelRewriter.internalDeclarations(in: text) }
            guard let output else {
                print(text, terminator: "")
                return
            }
            var isDirectory: ObjCBool = false
            if !FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory) {
                do {
                    try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
                } catch {
                    throw ModelToolFailure("cannot create the folder \(output): \(error.localizedDescription)")
                }
            } else if !isDirectory.boolValue {
                throw ModelToolFailure("\(output) is a file; --output names a folder")
            }
            let name = url.deletingPathExtension().lastPathComponent
            let file = URL(fileURLWithPath: output).appendingPathComponent("\(name)+CoreDataGenerated.swift")
            try ModelSupportOutput.write(text, to: file.path)
            ModelSupportOutput.printToStandardError("wrote \(file.path)")
        }
    }
}

/// The access level of generated declarations.
enum GeneratedAccess: String, ExpressibleByArgument, CaseIterable {
    case `public`
    case `internal`
}
