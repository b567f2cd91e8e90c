/*-------------------------------------------------------------------------
 *
 * key_map.h
 *	  The log cleaner's map of keys to the newest offset of each.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_KEY_MAP_H
#define TOPIC_KEY_MAP_H

typedef struct TopicKeyMap TopicKeyMap;

extern TopicKeyMap *topic_key_map_create(Size bytes);
extern bool topic_key_map_put(TopicKeyMap *map, const struct varlena *key,
							  int64 offset);
extern int64 topic_key_map_get(TopicKeyMap *map, const struct varlena *key);
extern int64 topic_key_map_count(TopicKeyMap *map);
extern void topic_key_map_destroy(TopicKeyMap *map);

#endif							/* TOPIC_KEY_MAP_H */
