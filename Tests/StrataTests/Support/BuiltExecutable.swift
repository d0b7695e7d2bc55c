import Foundation

/// The executables this test target depends on (second processes of the history and
/// concurrency tests), which SwiftPM builds beside the test runner.
enum BuiltExecutable {
    /// The built program of that name, or `nil` when it is not there.
    static func named(_ name: String) -> URL? {
        let candidates = [Bundle.main.executableURL, CommandLine.arguments.first.map { URL(fileURLWithPath: $0) }]
        for directory in candidates.compactMap({ $0?.resolvingSymlinksInPath().deletingLastPathComponent() }) {
            for folder in [
                directory, directory.deletingLastPathComponent(),
                directory.deletingLastPathComponent().deletingLastPathComponent(),
            ] {
                let url = folder.appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: url.path) { return url }
            }
        }
        return nil
    }
}
