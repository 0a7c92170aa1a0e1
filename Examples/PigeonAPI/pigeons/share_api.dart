// The Pigeon definition that Sources/ShareApi.g.swift is the Swift output of (Pigeon 28.0.0).
//
//   dart run pigeon --input pigeons/share_api.dart
//
// then `channelbridge pigeon adapt ios/Runner/ShareApi.g.swift` (or the one-line edit it makes).

import 'package:pigeon/pigeon.dart';

@ConfigurePigeon(
  PigeonOptions(
    dartOut: 'lib/src/share_api.g.dart',
    swiftOut: 'ios/Runner/ShareApi.g.swift',
    dartPackageName: 'pigeon_api_example',
  ),
)
enum Priority { low, normal, high }

class Attachment {
  Attachment({required this.path, this.sizeInBytes});

  String path;
  int? sizeInBytes;
}

class ShareItem {
  ShareItem({
    required this.title,
    this.note,
    required this.priority,
    this.attachment,
    required this.tags,
  });

  String title;
  String? note;
  Priority priority;
  Attachment? attachment;
  List<String> tags;
}

@HostApi()
abstract class ShareHostApi {
  String getHostLanguage();

  @SwiftFunction('add(_:to:)')
  int add(int a, int b);

  @async
  ShareItem summarize(ShareItem item);

  void clear();

  /// Throws EMPTY_TITLE for an item without a title.
  int save(ShareItem item);
}

@FlutterApi()
abstract class ShareFlutterApi {
  String itemSaved(ShareItem item);
}
