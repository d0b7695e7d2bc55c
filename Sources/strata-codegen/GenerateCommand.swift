import Foundation
import Strata
import StrataCodegen

/// `strata-codegen generate`: loads a model and writes its generated classes.
struct GenerateCommand {
    let model: URL
    let output: URL
    let moduleName: String?

    func run() throws {
        let loaded = try NSManagedObjectModel.load(contentsOf: model)
        // Problems Xcode compiles a model with (and Strata loads it with) show as build
        // warnings, as Xcode shows them.
        for warning in loaded.validationErrors() where warning.severity == .warning {
            let place = [warning.entity.map { "entity \($0)" }, warning.property.map { "property \($0)" }]
            let subject = place.compactMap { $0 }.joined(separator: ", ")
            let line = "\(model.path): warning: \(subject.isEmpty ? "" : subject + ": ")\(warning.message)\n"
            FileHandle.standardError.write(Data(line.utf8))
        }
        let generator = ClassGenerator(model: loaded, moduleName: moduleName, sourceFileName: model.lastPathComponent)
        let source = try generator.generate()
        try OutputFile.write(source, to: output)
    }
}

/// Writing generated files so that an unchanged result leaves the file untouched, and
/// what was compiled from it up to date.
enum OutputFile {
    static func write(_ text: String, to url: URL) throws {
        let data = Data(text.utf8)
        if FileManager.default.contents(atPath: url.path) == data { return }
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url, options: .atomic)
    }
}

/// `strata-codegen copy-model`: copies a model file or bundle, replacing the destination.
enum ModelCopier {
    static func copy(_ model: URL, to destination: URL) throws {
        let fileManager = FileManager.default
        guard fileManager.fileExists(atPath: model.path) else {
            throw ModelError(.unreadableFile(reason: "no such file"), file: model)
        }
        if fileManager.fileExists(atPath: destination.path) {
            try fileManager.removeItem(at: destination)
        }
        try fileManager.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        try fileManager.copyItem(at: model, to: destination)
    }
}
