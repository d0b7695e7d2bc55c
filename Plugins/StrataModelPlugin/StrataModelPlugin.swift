import Foundation
import PackagePlugin

/// Generates Swift classes for the Core Data models of a target, as Xcode's code
/// generation does, and copies each model into the target's resources so that the
/// persistent container finds it by name at run time. In any target, with a model or
/// without, it also makes `NSExpression`, `NSComparisonPredicate` and `NSCompoundPredicate`
/// mean Core Data's classes in files that import Foundation as well as CoreData.
///
/// ```swift
/// .target(name: "App", dependencies: ["Strata"], plugins: [.plugin(name: "StrataModelPlugin", package: "Strata")])
/// ```
///
/// Each `.xcdatamodeld` bundle and each `.xcdatamodel` not inside one, anywhere in the
/// target's folder, gets `<Name>+CoreDataGenerated.swift`; each `.xcmappingmodel` is copied
/// into the resources, where `NSMappingModel(from:forSourceModel:destinationModel:)` and
/// automatic migration find it. Every file of the model is an
/// input, so editing any version or the current-version marker generates again.
@main
struct StrataModelPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        guard let module = target.sourceModule else { return [] }
        let tool = try context.tool(named: "strata-codegen").url
        let models = ModelFileSet(sourceFiles: module.sourceFiles.map(\.url), in: module.directoryURL)
        for duplicate in models.duplicateNames {
            Diagnostics.error("Several Core Data models in \(module.name) are named \(duplicate); only the first is used")
        }
        var commands = models.models.flatMap { model in
            ModelCommands(model: model, tool: tool, workDirectory: context.pluginWorkDirectoryURL, moduleName: module.moduleName)
                .commands
        }
        // Mapping models are copied into the resources as they are (Strata reads Xcode's
        // `xcmapping.xml`), and on Linux beside the executables, where `Bundle.main` looks.
        for mapping in models.mappingModels {
            let output = context.pluginWorkDirectoryURL.appendingPathComponent("MappingModels")
                .appendingPathComponent(mapping.lastPathComponent)
            var arguments = ["copy-model", mapping.path, "--output", output.path]
            #if os(Linux)
                arguments += ["--copy-to", tool.deletingLastPathComponent().path]
            #endif
            let inputs =
                [mapping] + ((try? FileManager.default.contentsOfDirectory(at: mapping, includingPropertiesForKeys: nil)) ?? [])
            commands.append(
                .buildCommand(
                    displayName: "Copying \(mapping.lastPathComponent) to resources", executable: tool,
                    arguments: arguments, inputFiles: inputs, outputFiles: [output]))
        }
        // Once per target, with or without a model: Core Data's class names that Foundation on
        // Linux also declares, so that files importing both Foundation and CoreData can name them.
        // The same command checks the target's Swift files for @NSManaged, which Linux reports
        // only when linking, with symbols that name no cause.
        let names = context.pluginWorkDirectoryURL.appendingPathComponent("StrataNames.swift")
        let swiftFiles = module.sourceFiles.map(\.url).filter { $0.pathExtension == "swift" }
        commands.append(
            .buildCommand(
                displayName: "Naming Core Data's classes for \(module.name)", executable: tool,
                arguments: ["names", "--output", names.path] + swiftFiles.map(\.path), inputFiles: swiftFiles,
                outputFiles: [names]))
        return commands
    }
}

/// The build commands for one model: generating its classes, copying it as a resource, and
/// compiling it into the `.momd` (or `.mom`) apps look up in their bundle.
///
/// SwiftPM makes every output that is not a source file a resource of the target, in its
/// resource bundle (`Bundle.module`). `Bundle.main` on Linux is the executable's folder, where
/// SwiftPM puts no resource; so on Linux the compiled model is also written there (the folder
/// of the build's tools, which is where the build puts its executables and tests), as Xcode
/// puts it in the app bundle. That copy is not a declared output: SwiftPM neither tracks nor
/// cleans it (see DEVIATIONS.md).
struct ModelCommands {
    let model: ModelFileSet.Model
    let tool: URL
    let workDirectory: URL
    let moduleName: String

    /// `Model.momd` for a versioned bundle, `Model.mom` for a lone `.xcdatamodel`, as Xcode names them.
    var compiledName: String {
        model.name + (model.root.pathExtension == "xcdatamodeld" ? ".momd" : ".mom")
    }

    var commands: [Command] {
        let source = workDirectory.appendingPathComponent("\(model.name)+CoreDataGenerated.swift")
        let resource = workDirectory.appendingPathComponent("Models").appendingPathComponent(model.root.lastPathComponent)
        let compiled = workDirectory.appendingPathComponent("Compiled").appendingPathComponent(compiledName)
        // The module's name, so that the compiled model names the classes generated into it
        // (and its "Current Product Module" classes) with their module, as Xcode's does.
        var compileArguments = ["compile-model", model.root.path, "--output", compiled.path, "--module-name", moduleName]
        #if os(Linux)
            compileArguments += ["--copy-to", tool.deletingLastPathComponent().path]
        #endif
        return [
            .buildCommand(
                displayName: "Generating classes from \(model.root.lastPathComponent)",
                executable: tool,
                arguments: ["generate", model.root.path, "--output", source.path, "--module-name", moduleName],
                inputFiles: model.inputs,
                outputFiles: [source]
            ),
            .buildCommand(
                displayName: "Copying \(model.root.lastPathComponent) to resources",
                executable: tool,
                arguments: ["copy-model", model.root.path, "--output", resource.path],
                inputFiles: model.inputs,
                outputFiles: [resource]
            ),
            .buildCommand(
                displayName: "Compiling \(model.root.lastPathComponent) to \(compiledName)",
                executable: tool,
                arguments: compileArguments,
                inputFiles: model.inputs,
                outputFiles: [compiled]
            ),
        ]
    }
}
