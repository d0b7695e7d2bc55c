import Foundation

// SwiftData code in the style of Apple's documentation and sample apps (COMPAT for SwiftData):
// this folder is compiled twice, here in Swift 6 language mode and by SwiftDataSwift5Tests
// (whose AppleStyle folder links here) in Swift 5 mode.

/// A store in a fresh temporary folder.
func temporaryStoreURL(_ name: String = "default.store") throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("swiftdata-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder.appendingPathComponent(name)
}
